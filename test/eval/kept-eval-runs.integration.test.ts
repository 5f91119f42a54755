/**
 * A run of `goondan eval` is kept for the studio: after `goondan eval --replay` of the bundled example, its JSON
 * report (version 1) lies at `<state root>/evals/<run id>.json` with each case's conversation and runtime events,
 * and a `goondan run` started later on the same state root serves it at GET /v1/evals (newest first, with the
 * counts) and GET /v1/evals/:runId (the report whole), an unknown run being a coded 404.
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { EvalReport } from "../../src/eval/eval-report.ts";
import { realProcessTimeouts, useCleanups } from "../helpers/cleanups.ts";
import { replayExample, runExample } from "./kept-eval-run.ts";

realProcessTimeouts();
const defer = useCleanups();

describe("a kept eval run", () => {
  it("is written under the state root by goondan eval and served by goondan run at /v1/evals", async () => {
    const replayed = await replayExample(defer);
    expect(replayed.stdout).toContain("2/2 passed");
    expect(replayed.code).toBe(0);
    const files = readdirSync(join(replayed.stateRoot, "evals")).filter((name) => name.endsWith(".json"));
    expect(files.length).toBe(1);
    const runId = (files[0] as string).replace(/\.json$/, "");
    const kept = JSON.parse(readFileSync(join(replayed.stateRoot, "evals", files[0] as string), "utf8")) as EvalReport;
    expect(kept.version).toBe(1);
    expect(kept.mode).toBe("replay");
    const poem = kept.cases.find((item) => item.id === "example/writes-a-poem");
    expect(poem?.status).toBe("pass");
    // The thread: the coordinator's conversation and the worker's it delegated to, with the tool calls.
    expect(poem?.threads?.map((thread) => thread.agent).sort()).toEqual(["coordinator", "worker"]);
    const calls = poem?.threads?.flatMap((thread) =>
      thread.messages.flatMap((message) =>
        Array.isArray(message.data.content)
          ? message.data.content.filter((part) => part.type === "tool-call").map((part) => part.toolName)
          : [],
      ),
    );
    expect(calls).toEqual(expect.arrayContaining(["agents__request", "file-system__write", "bash__exec"]));
    // The trace: the runtime events of its turns, the ones traceIds names.
    const turns = poem?.events?.filter((event) => event.type === "turn.started") ?? [];
    expect(turns.length).toBeGreaterThanOrEqual(2);
    expect(poem?.traceIds.every((id) => poem.events?.some((event) => event.traceId === id))).toBe(true);

    const run = await runExample(defer, replayed.stateRoot);
    const list = (await (await fetch(`${run.base}/v1/evals`)).json()) as { runs: Record<string, unknown>[] };
    expect(list.runs).toHaveLength(1);
    expect(list.runs[0]).toMatchObject({ id: runId, mode: "replay", cases: 2, passed: 2, failed: 0, errors: 0 });
    const report = await fetch(`${run.base}/v1/evals/${runId}`);
    expect(report.status).toBe(200);
    expect(await report.json()).toEqual(JSON.parse(JSON.stringify(kept)));
    const missing = await fetch(`${run.base}/v1/evals/2020-01-01T00-00-00-000Z`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("E_EVAL_RUN_NOT_FOUND");
  }, 180_000);
});
