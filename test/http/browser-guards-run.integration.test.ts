/**
 * The attacks of issue 11 (items 1 and 5) reproduced with real HTTP requests against a real `goondan run` (bin/goondan,
 * real agent children on the loopback LLM): a page's text/plain or form POST, another origin's preflight, a
 * cross-site Sec-Fetch-Site, a DNS-rebinding Host, a 5,000-character instanceKey. Each is refused with its coded
 * JSON answer and never reaches a model, while a program's JSON request runs its turn. Then the operator's allow-lists
 * through the environment, and a listener beyond loopback without a token refusing to start.
 */
import { describe, expect, it } from "bun:test";
import { childEnv } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { GOONDAN_BIN } from "../helpers/goondan-process.ts";
import { realSwarm, serveRealSwarm } from "./run-fixture.ts";

const defer = useCleanups();

const serve = (env: Record<string, string> = {}) =>
  serveRealSwarm({ defer, llm: { fallback: { text: "hello from the model" } }, env });

const errorCode = async (response: Response): Promise<string | undefined> =>
  ((await response.json()) as { error?: { code?: string } }).error?.code;

describe("a real goondan run refuses what a web page can send", () => {
  it("refuses simple cross-site POSTs, other origins, cross-site fetches, rebinding hosts and oversized keys; a program's JSON request still runs", async () => {
    const run = await serve();
    const events = `${run.base}/v1/events`;
    const json = { "content-type": "application/json" };
    const attacks: { name: string; init: RequestInit; status: number; code: string }[] = [
      {
        name: "a form's text/plain POST",
        init: {
          method: "POST",
          headers: {
            "content-type": "text/plain;charset=UTF-8",
            origin: "http://evil.example",
            "sec-fetch-site": "cross-site",
          },
          body: '{"input":"run rm -rf ~"}',
        },
        status: 403,
        code: "E_API_ORIGIN_FORBIDDEN",
      },
      {
        name: "text/plain from a program",
        init: { method: "POST", headers: { "content-type": "text/plain" }, body: '{"input":"run rm -rf ~"}' },
        status: 415,
        code: "E_API_UNSUPPORTED_MEDIA_TYPE",
      },
      {
        name: "a urlencoded form",
        init: { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "input=run" },
        status: 415,
        code: "E_API_UNSUPPORTED_MEDIA_TYPE",
      },
      {
        name: "another origin's preflight",
        init: {
          method: "OPTIONS",
          headers: {
            origin: "http://evil.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
          },
        },
        status: 403,
        code: "E_API_ORIGIN_FORBIDDEN",
      },
      {
        name: "another origin's JSON",
        init: { method: "POST", headers: { ...json, origin: "http://evil.example" }, body: '{"input":"x"}' },
        status: 403,
        code: "E_API_ORIGIN_FORBIDDEN",
      },
      {
        name: "a cross-site fetch without Origin",
        init: { method: "POST", headers: { ...json, "sec-fetch-site": "cross-site" }, body: '{"input":"x"}' },
        status: 403,
        code: "E_API_ORIGIN_FORBIDDEN",
      },
      {
        name: "a DNS-rebinding page",
        init: {
          method: "POST",
          headers: {
            ...json,
            host: `rebind.attacker.example:${run.port}`,
            origin: `http://rebind.attacker.example:${run.port}`,
          },
          body: '{"input":"x"}',
        },
        status: 403,
        code: "E_API_HOST_FORBIDDEN",
      },
      {
        name: "a 5,000-character instanceKey",
        init: { method: "POST", headers: json, body: JSON.stringify({ input: "x", instanceKey: "k".repeat(5000) }) },
        status: 400,
        code: "E_API_BAD_REQUEST",
      },
      {
        name: "an empty input",
        init: { method: "POST", headers: json, body: '{"input":""}' },
        status: 400,
        code: "E_API_BAD_REQUEST",
      },
      {
        name: "metadata as an array",
        init: { method: "POST", headers: json, body: '{"input":"x","metadata":[]}' },
        status: 400,
        code: "E_API_BAD_REQUEST",
      },
    ];
    for (const attack of attacks) {
      const response = await fetch(events, attack.init);
      expect({ attack: attack.name, status: response.status, code: await errorCode(response) }).toEqual({
        attack: attack.name,
        status: attack.status,
        code: attack.code,
      });
    }
    const rebindRead = await fetch(`${run.base}/v1/processes`, {
      headers: { host: `rebind.attacker.example:${run.port}` },
    });
    expect(rebindRead.status).toBe(403);
    const restart = await fetch(`${run.base}/v1/restart`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"fresh":"yes"}',
    });
    expect(await errorCode(restart)).toBe("E_API_BAD_REQUEST");
    expect(run.llm.requests).toHaveLength(0);
    const instances = (await (await fetch(`${run.base}/v1/instances`)).json()) as { instances: unknown[] };
    expect(instances.instances).toEqual([]);

    const answered = await fetch(events, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ input: "hi", wait: true }),
    });
    expect(await answered.json()).toMatchObject({
      status: "ok",
      response: "hello from the model",
      agent: "coordinator",
    });
    expect(run.llm.requests).toHaveLength(1);
    expect((await fetch(`http://localhost:${run.port}/healthz`)).status).toBe(200);
  }, 40_000);

  it("serves the origins and host names the operator lists in the environment", async () => {
    const run = await serve({
      GOONDAN_API_ALLOWED_ORIGINS: "http://localhost:5173",
      GOONDAN_API_ALLOWED_HOSTS: "goondan.test",
    });
    const preflight = await fetch(`${run.base}/v1/events`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    const posted = await fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost:5173", "sec-fetch-site": "same-site" },
      body: '{"input":"hi","instanceKey":"studio"}',
    });
    expect(posted.status).toBe(202);
    expect(posted.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    expect((await fetch(`${run.base}/healthz`, { headers: { host: `goondan.test:${run.port}` } })).status).toBe(200);
    expect(await errorCode(await fetch(`${run.base}/healthz`, { headers: { host: `other.test:${run.port}` } }))).toBe(
      "E_API_HOST_FORBIDDEN",
    );
  }, 40_000);
});

describe("goondan run refuses to start", () => {
  async function refusal(
    args: string[],
    env: Record<string, string>,
  ): Promise<{ code: number; stderr: string; stdout: string }> {
    const { dir, stateRoot } = await realSwarm({ defer });
    const proc = Bun.spawn(
      [process.execPath, GOONDAN_BIN, "run", dir, "--port", "0", "--state-root", stateRoot, ...args],
      {
        env: { ...process.env, ...childEnv, GOONDAN_API_TOKEN: "", ...env },
        stdout: "pipe",
        stderr: "pipe",
        stdin: "ignore",
      },
    );
    defer(async () => {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { code, stderr, stdout };
  }

  it("beyond loopback without a token: exit 2 naming GOONDAN_API_TOKEN, before any agent or listener starts", async () => {
    // The refusal happens before binding, so nothing listens beyond loopback even for a moment.
    const result = await refusal(["--host", "0.0.0.0"], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("GOONDAN_API_TOKEN");
    expect(result.stderr).toContain("0.0.0.0");
    expect(result.stdout).not.toContain('"msg":"ready"');
  }, 30_000);

  it("with a malformed allow-list: exit 2 naming the variable", async () => {
    const result = await refusal([], { GOONDAN_API_ALLOWED_ORIGINS: "localhost:5173" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("GOONDAN_API_ALLOWED_ORIGINS");
  }, 30_000);
});
