/**
 * `GET /v1/evals` and `GET /v1/evals/:runId` over the runs `goondan eval` keeps under a state root: the list is
 * newest first with each run's counts and cost, a run answers its report whole, an unknown run is a coded 404, a
 * malformed id a coded 400, a backend without runs a coded 501, both ask for the token like every route, and only
 * the newest 50 runs are kept.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createApiHandler } from "../../src/http/http-api.ts";
import { EVAL_RUNS_KEPT, evalRuns, saveEvalRun } from "../../src/store/eval-runs.ts";
import { apiFixture, backendOf, bodyOf } from "./api-fixture.ts";

const report = (startedAt: string, passed: number, failed: number) => ({
  version: 1,
  bundle: "/bundles/demo",
  mode: "replay",
  startedAt,
  totals: {
    cases: passed + failed,
    passed,
    failed,
    errors: 0,
    skipped: 0,
    tokens: { input: 120, output: 30 },
    costUsd: 0.0012,
    durationMs: 4200,
  },
  cases: [{ id: "greet/hello", status: failed > 0 ? "fail" : "pass", events: [], threads: [] }],
});

function evalsApi(token?: string) {
  const fixture = apiFixture();
  const handle = createApiHandler({
    backend: { ...backendOf(fixture.orchestrator), evals: evalRuns(fixture.stateRoot) },
    ...(token ? { token } : {}),
  });
  const get = (path: string, headers: Record<string, string> = {}) =>
    handle(new Request(`http://127.0.0.1${path}`, { headers }));
  return { ...fixture, get };
}

describe("GET /v1/evals", () => {
  it("lists the kept runs newest first, each with its counts, tokens and cost", async () => {
    const api = evalsApi();
    await saveEvalRun({
      stateRoot: api.stateRoot,
      runId: "2026-11-27T10-00-00-000Z",
      report: report("2026-11-27T10:00:00.000Z", 2, 0),
    });
    await saveEvalRun({
      stateRoot: api.stateRoot,
      runId: "2026-11-27T11-00-00-000Z",
      report: report("2026-11-27T11:00:00.000Z", 1, 1),
    });
    const response = await api.get("/v1/evals");
    expect(response.status).toBe(200);
    const { runs } = await bodyOf(response);
    expect(runs.map((run: { id: string }) => run.id)).toEqual(["2026-11-27T11-00-00-000Z", "2026-11-27T10-00-00-000Z"]);
    expect(runs[0]).toEqual({
      id: "2026-11-27T11-00-00-000Z",
      startedAt: "2026-11-27T11:00:00.000Z",
      bundle: "/bundles/demo",
      mode: "replay",
      cases: 2,
      passed: 1,
      failed: 1,
      errors: 0,
      skipped: 0,
      tokens: { input: 120, output: 30 },
      costUsd: 0.0012,
      durationMs: 4200,
    });
  });

  it("answers an empty list before any run", async () => {
    const api = evalsApi();
    expect(await bodyOf(await api.get("/v1/evals"))).toEqual({ runs: [] });
  });

  it("answers a run's report whole, and a coded 404 for a run it does not keep", async () => {
    const api = evalsApi();
    const kept = report("2026-11-27T10:00:00.000Z", 1, 0);
    await saveEvalRun({ stateRoot: api.stateRoot, runId: "2026-11-27T10-00-00-000Z", report: kept });
    const found = await api.get("/v1/evals/2026-11-27T10-00-00-000Z");
    expect(found.status).toBe(200);
    expect(await bodyOf(found)).toEqual(kept);
    const missing = await api.get("/v1/evals/2026-01-01T00-00-00-000Z");
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error.code).toBe("E_EVAL_RUN_NOT_FOUND");
  });

  it("refuses a run id that could name another file with a coded 400", async () => {
    const api = evalsApi();
    for (const id of ["..%2Fsecrets", "a.json", "-x"]) {
      const response = await api.get(`/v1/evals/${id}`);
      expect(response.status).toBe(400);
      expect((await bodyOf(response)).error.code).toBe("E_API_BAD_REQUEST");
    }
    expect((await api.get("/v1/evals?limit=3")).status).toBe(400);
  });

  it("asks for the token like every other route", async () => {
    const api = evalsApi("s3cret-token");
    expect((await api.get("/v1/evals")).status).toBe(401);
    expect((await api.get("/v1/evals/2026-11-27T10-00-00-000Z")).status).toBe(401);
    expect((await api.get("/v1/evals", { authorization: "Bearer s3cret-token" })).status).toBe(200);
  });

  it("answers a coded 501 where the backend keeps no runs", async () => {
    const { request } = apiFixture();
    const response = await request("GET", "/v1/evals");
    expect(response.status).toBe(501);
    expect((await bodyOf(response)).error.code).toBe("E_EVALS_UNAVAILABLE");
  });

  it("keeps only the newest 50 runs, reports and run directories alike", async () => {
    const api = evalsApi();
    const ids = Array.from(
      { length: EVAL_RUNS_KEPT + 3 },
      (_, n) => `2026-11-27T10-00-${String(n).padStart(2, "0")}-000Z`,
    );
    for (const id of ids) {
      mkdirSync(join(api.stateRoot, "evals", id), { recursive: true });
      await saveEvalRun({ stateRoot: api.stateRoot, runId: id, report: report("2026-11-27T10:00:00.000Z", 1, 0) });
    }
    const left = readdirSync(join(api.stateRoot, "evals"));
    expect(left.filter((name) => name.endsWith(".json")).length).toBe(EVAL_RUNS_KEPT);
    expect(existsSync(join(api.stateRoot, "evals", ids[0] as string))).toBe(false);
    expect(existsSync(join(api.stateRoot, "evals", `${ids[2]}.json`))).toBe(false);
    expect(existsSync(join(api.stateRoot, "evals", `${ids[3]}.json`))).toBe(true);
    const { runs } = await bodyOf(await api.get("/v1/evals"));
    expect(runs.length).toBe(EVAL_RUNS_KEPT);
    expect(runs[0].id).toBe(ids.at(-1));
  });
});
