import { afterEach, describe, expect, it } from "bun:test";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import { checkIsolation } from "../../src/cli/commands/doctor.ts";
import { PidNamespaceSandbox } from "../../src/tools/pid-namespace-sandbox.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { instancePaths } from "../../src/shared/state-paths.ts";

const dirs: string[] = [];
const servers: { stop(force?: boolean): void }[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const server of servers.splice(0)) server.stop(true);
});

function stateRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-operator-"));
  dirs.push(dir);
  return dir;
}

function capture(env: Record<string, string | undefined> = {}, cwd = process.cwd()) {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = { stdout: (text) => (out.stdout += text), stderr: (text) => (out.stderr += text), env, cwd };
  return { io, out };
}

function seedInstance(root: string, options: { swarm?: string; agent: string; instanceKey: string; events?: object[]; messages?: number }) {
  const paths = instancePaths({ stateRoot: root, swarmInstanceKey: options.swarm ?? "team", agent: options.agent, instanceKey: options.instanceKey });
  mkdirSync(paths.root, { recursive: true });
  writeFileSync(paths.base, Array.from({ length: options.messages ?? 0 }, (_, index) => `${JSON.stringify({ id: `m${index}` })}\n`).join(""));
  writeFileSync(paths.runtimeEvents, (options.events ?? []).map((event) => `${JSON.stringify(event)}\n`).join(""));
  return paths;
}

const event = (at: string, agent: string, instanceKey: string, type: string, extra: object = {}) => ({ at, agent, instanceKey, type, traceId: "t", spanId: "s", ...extra });

/** The owner file `goondan run` writes (src/orchestrator/state-root-lock.ts). */
function writeOwner(root: string, owner: { pid: number; port: number; host: string }) {
  writeFileSync(join(root, "orchestrator.json"), JSON.stringify({ ...owner, startedAt: new Date().toISOString() }));
}

async function deadPid(): Promise<number> {
  const proc = Bun.spawn(["true"]);
  await proc.exited;
  return proc.pid;
}

function fakeApi(handler: (request: Request) => Response | Promise<Response>) {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  servers.push(server);
  return String(server.port);
}

describe("goondan logs", () => {
  it("prints every instance's runtime events oldest first, one readable line each", async () => {
    const root = stateRoot();
    seedInstance(root, { agent: "planner", instanceKey: "team", events: [event("2026-01-01T00:00:02.000Z", "planner", "team", "turn.completed", { turnId: "trn_1", durationMs: 1200, usage: { inputTokens: 10, outputTokens: 4 } })] });
    seedInstance(root, { agent: "writer", instanceKey: "team", events: [event("2026-01-01T00:00:01.000Z", "writer", "team", "tool.failed", { toolName: "bash__exec", error: { code: "E_TOOL", message: "boom" } })] });
    const { io, out } = capture();
    expect(await main(["logs", "--state-root", root], io)).toBe(0);
    expect(out.stdout).toBe(
      '2026-01-01T00:00:01.000Z writer/team tool.failed tool=bash__exec error=E_TOOL "boom"\n2026-01-01T00:00:02.000Z planner/team turn.completed turn=trn_1 1200ms tokens=10/4\n',
    );
  });

  it("names the extension and hook of an extension.failed event", async () => {
    const root = stateRoot();
    seedInstance(root, { agent: "planner", instanceKey: "team", events: [event("2026-01-01T00:00:01.000Z", "planner", "team", "extension.failed", { turnId: "trn_2", data: { extension: "memory", hook: "turn" }, error: { code: "E_EXTENSION_FAILED", message: "lost" } })] });
    const { io, out } = capture();
    expect(await main(["logs", "--state-root", root], io)).toBe(0);
    expect(out.stdout).toBe('2026-01-01T00:00:01.000Z planner/team extension.failed turn=trn_2 extension=memory hook=turn error=E_EXTENSION_FAILED "lost"\n');
  });

  it("filters by agent and instance, and prints JSON lines with --format json", async () => {
    const root = stateRoot();
    seedInstance(root, { agent: "planner", instanceKey: "a", events: [event("2026-01-01T00:00:01.000Z", "planner", "a", "turn.started")] });
    seedInstance(root, { agent: "planner", instanceKey: "b", events: [event("2026-01-01T00:00:02.000Z", "planner", "b", "turn.started")] });
    seedInstance(root, { agent: "writer", instanceKey: "a", events: [event("2026-01-01T00:00:03.000Z", "writer", "a", "turn.started")] });
    const { io, out } = capture();
    expect(await main(["logs", "--state-root", root, "--agent", "planner", "--instance", "b", "--format", "json"], io)).toBe(0);
    expect(out.stdout.trim().split("\n").map((line) => JSON.parse(line).instanceKey)).toEqual(["b"]);
  });

  it("says so on stderr and exits 0 when nothing matches", async () => {
    const { io, out } = capture();
    expect(await main(["logs", "--state-root", stateRoot(), "--agent", "ghost"], io)).toBe(0);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("no runtime events for agent ghost");
  });

  it("follows new events until interrupted, then exits 130", async () => {
    const root = stateRoot();
    const paths = seedInstance(root, { agent: "planner", instanceKey: "team", events: [event("2026-01-01T00:00:01.000Z", "planner", "team", "turn.started")] });
    const child = Bun.spawn([process.execPath, new URL("../../bin/goondan", import.meta.url).pathname, "logs", "--follow", "--state-root", root], { stdout: "pipe", stderr: "pipe" });
    const reader = child.stdout.getReader();
    let seen = "";
    const readUntil = async (needle: string) => {
      const deadline = Date.now() + 10_000;
      while (!seen.includes(needle)) {
        if (Date.now() > deadline) throw new Error(`did not see ${needle}; got ${seen}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended; got ${seen}`);
        seen += new TextDecoder().decode(value);
      }
    };
    await readUntil("turn.started");
    appendFileSync(paths.runtimeEvents, `${JSON.stringify(event("2026-01-01T00:00:05.000Z", "planner", "team", "turn.completed"))}\n`);
    await readUntil("turn.completed");
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
  });
});

describe("goondan instance", () => {
  it("lists the instances on disk with their swarm, committed messages and last change", async () => {
    const root = stateRoot();
    seedInstance(root, { agent: "planner", instanceKey: "user/42", messages: 3 });
    const { io, out } = capture();
    expect(await main(["instance", "list", "--state-root", root, "--format", "json"], io)).toBe(0);
    const listed = JSON.parse(out.stdout).instances;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ swarm: "team", agent: "planner", instanceKey: "user/42", messages: 3 });
    const text = capture();
    expect(await main(["instance", "list", "--state-root", root], text.io)).toBe(0);
    expect(text.out.stdout).toContain("planner  user/42");
  });

  it("deletes an instance's files when no orchestrator runs it", async () => {
    const root = stateRoot();
    const paths = seedInstance(root, { agent: "planner", instanceKey: "team" });
    const port = fakeApi(() => Response.json({ instances: [] }));
    const { io, out } = capture();
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], io)).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
    expect(out.stdout).toContain("deleted team/planner/team");
  });

  it("deletes when no orchestrator answers and no live one owns the state root (a stale owner file is ignored)", async () => {
    const root = stateRoot();
    const paths = seedInstance(root, { agent: "planner", instanceKey: "team" });
    const port = fakeApi(() => new Response("")); // grab a port, then free it
    servers.splice(0).forEach((server) => server.stop(true));
    writeOwner(root, { pid: await deadPid(), port: Number(port), host: "127.0.0.1" });
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], capture().io)).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
  });

  it("refuses to delete while a live orchestrator owns the state root and its API does not answer", async () => {
    const root = stateRoot();
    const paths = seedInstance(root, { agent: "planner", instanceKey: "team" });
    const port = fakeApi(() => new Response(""));
    servers.splice(0).forEach((server) => server.stop(true));
    writeOwner(root, { pid: process.pid, port: Number(port), host: "127.0.0.1" });
    const { io, out } = capture();
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", "1"], io)).toBe(1);
    expect(existsSync(paths.root)).toBe(true);
    expect(out.stderr).toContain("E_STATE_ROOT_OWNED");
  });

  it("refuses to delete when the owning orchestrator's API answers 401 or 403", async () => {
    for (const status of [401, 403]) {
      const root = stateRoot();
      const paths = seedInstance(root, { agent: "planner", instanceKey: "team" });
      const port = fakeApi(() => Response.json({ error: { code: "UNAUTHORIZED", message: "no" } }, { status }));
      writeOwner(root, { pid: process.pid, port: Number(port), host: "127.0.0.1" });
      const { io, out } = capture({ GOONDAN_API_TOKEN: "wrong" });
      expect(await main(["instance", "delete", "planner", "team", "--state-root", root], io)).toBe(1);
      expect(existsSync(paths.root)).toBe(true);
      expect(out.stderr).toContain("E_STATE_ROOT_OWNED");
    }
  });

  it("deletes when the owning orchestrator, asked at the address it recorded with the token, says the instance is not live", async () => {
    const root = stateRoot();
    const paths = seedInstance(root, { agent: "planner", instanceKey: "team" });
    let authorization = "";
    const port = fakeApi((request) => {
      authorization = request.headers.get("authorization") ?? "";
      return Response.json({ instances: [{ agent: "planner", instanceKey: "team", status: "terminated" }] });
    });
    writeOwner(root, { pid: process.pid, port: Number(port), host: "127.0.0.1" });
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", "1"], capture({ GOONDAN_API_TOKEN: "tok" }).io)).toBe(0);
    expect(existsSync(paths.root)).toBe(false);
    expect(authorization).toBe("Bearer tok");
  });

  it("refuses to delete an instance the running orchestrator has live", async () => {
    const root = stateRoot();
    const paths = seedInstance(root, { agent: "planner", instanceKey: "team" });
    let authorization = "";
    const port = fakeApi((request) => {
      authorization = request.headers.get("authorization") ?? "";
      return Response.json({ instances: [{ agent: "planner", instanceKey: "team", status: "idle", pid: 1234 }] });
    });
    const { io, out } = capture({ GOONDAN_API_TOKEN: "tok" });
    expect(await main(["instance", "delete", "planner", "team", "--state-root", root, "--port", port], io)).toBe(1);
    expect(existsSync(paths.root)).toBe(true);
    expect(out.stderr).toContain("is running");
    expect(out.stderr).toContain("goondan restart --agent planner --instance team --fresh");
    expect(authorization).toBe("Bearer tok");
  });

  it("exits 1 for an unknown instance and 2 for a missing argument or unknown action", async () => {
    const root = stateRoot();
    expect(await main(["instance", "delete", "ghost", "x", "--state-root", root, "--port", "1"], capture().io)).toBe(1);
    expect(await main(["instance", "delete", "ghost", "--state-root", root], capture().io)).toBe(2);
    expect(await main(["instance", "prune", "--state-root", root], capture().io)).toBe(2);
  });
});

describe("goondan restart", () => {
  it("posts the agent and fresh flag to /v1/restart and reports acceptance", async () => {
    let received: unknown;
    const port = fakeApi(async (request) => {
      if (new URL(request.url).pathname !== "/v1/restart" || request.method !== "POST") return new Response("", { status: 404 });
      received = await request.json();
      return Response.json({ accepted: true, issues: [] }, { status: 202 });
    });
    const { io, out } = capture();
    expect(await main(["restart", "--agent", "writer", "--fresh", "--port", port], io)).toBe(0);
    expect(received).toEqual({ agent: "writer", fresh: true });
    expect(out.stdout).toBe("restart accepted: agent writer with fresh conversations\n");
  });

  it("posts one instance of an agent and reports that only its conversation is fresh", async () => {
    let received: unknown;
    const port = fakeApi(async (request) => {
      received = await request.json();
      return Response.json({ accepted: true, issues: [], instance: { agent: "a", instanceKey: "k", known: true } }, { status: 202 });
    });
    const { io, out } = capture();
    expect(await main(["restart", "--agent", "a", "--instance", "k", "--fresh", "--port", port], io)).toBe(0);
    expect(received).toEqual({ agent: "a", instanceKey: "k", fresh: true });
    expect(out.stdout).toBe("restart accepted: agent a instance k with a fresh conversation\n");
    expect(out.stderr).toBe("");
  });

  it("notes an instance key the agent does not know, naming its known instances, and still exits 0", async () => {
    const port = fakeApi(() => Response.json({ accepted: true, issues: [], instance: { agent: "a", instanceKey: "kk", known: false, agentInstances: ["k1", "k2"] } }, { status: 202 }));
    const { io, out } = capture();
    expect(await main(["restart", "--agent", "a", "--instance", "kk", "--port", port], io)).toBe(0);
    expect(out.stdout).toBe("restart accepted: agent a instance kk\n");
    expect(out.stderr).toContain("k1, k2");
  });

  it("exits 2 without calling the orchestrator when --instance comes without --agent", async () => {
    let called = false;
    const port = fakeApi(() => ((called = true), Response.json({ accepted: true, issues: [] }, { status: 202 })));
    const { io, out } = capture();
    expect(await main(["restart", "--instance", "k", "--fresh", "--port", port], io)).toBe(2);
    expect(out.stderr).toContain("--agent");
    expect(called).toBe(false);
  });

  it("documents --instance in --help", async () => {
    const { io, out } = capture();
    expect(await main(["restart", "--help"], io)).toBe(0);
    expect(out.stdout).toContain("--agent NAME [--instance KEY]");
    expect(out.stdout).toMatch(/--instance <value>\n\s+with --agent: restart only this instanceKey/);
  });

  it("prints the validation issues and exits 3 when the bundle on disk is invalid", async () => {
    const port = fakeApi(() =>
      Response.json({ accepted: false, issues: [{ code: "E_CONFIG_REF_NOT_FOUND", path: "goondan.yaml#3.spec.tools[0]", message: "Tool/echo not found" }], error: { code: "E_CONFIG_INVALID", message: "invalid" } }, { status: 422 }),
    );
    const { io, out } = capture();
    expect(await main(["restart", "--port", port], io)).toBe(3);
    expect(out.stderr).toContain("goondan.yaml#3.spec.tools[0]: E_CONFIG_REF_NOT_FOUND Tool/echo not found");
  });

  it("exits 1 with a hint when no orchestrator answers", async () => {
    const port = fakeApi(() => new Response(""));
    servers.splice(0).forEach((server) => server.stop(true));
    const { io, out } = capture();
    expect(await main(["restart", "--port", port], io)).toBe(1);
    expect(out.stderr).toContain("no goondan orchestrator answers");
  });
});

describe("goondan doctor", () => {
  const BUNDLE = new URL("../fixtures/connectors/plan-bundle/", import.meta.url).pathname;

  it("passes every check for a valid bundle with its env set, a writable state root and a free port", async () => {
    const port = fakeApi(() => new Response(""));
    servers.splice(0).forEach((server) => server.stop(true));
    const { io, out } = capture({ PLAN_TEST_SECRET: "x" });
    expect(await main(["doctor", BUNDLE, "--state-root", join(stateRoot(), "state"), "--port", port], io)).toBe(0);
    expect(out.stdout).toMatch(/^ok {4}bun/m);
    expect(out.stdout).toMatch(/^ok {4}bundle/m);
    expect(out.stdout).toMatch(/^ok {4}env/m);
    expect(out.stdout).toMatch(/^ok {4}state root/m);
    expect(out.stdout).toMatch(/^ok {4}port/m);
    if (process.platform === "linux") expect(out.stdout).toMatch(/^ok {4}isolation +bash tool commands run in their own PID namespace/m);
  });

  it("warns, naming why and what is then in reach, when bash commands cannot get a PID namespace", async () => {
    const check = await checkIsolation(new PidNamespaceSandbox({ helperPath: "/nonexistent" }));
    expect(check.outcome).toBe("warn");
    expect(check.detail).toContain("unshare (util-linux / coreutils) is not installed");
    expect(check.detail).toContain("GOONDAN_API_TOKEN");
  });

  it("exits 3 naming the missing env var", async () => {
    const { io, out } = capture({});
    expect(await main(["doctor", BUNDLE, "--state-root", stateRoot(), "--port", "1"], io)).toBe(3);
    expect(out.stdout).toMatch(/^FAIL {2}env .*PLAN_TEST_SECRET/ms);
  });

  it("exits 3 for an invalid bundle", async () => {
    const dir = stateRoot();
    writeFileSync(join(dir, "goondan.yaml"), "apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: lonely }\nspec: {}\n");
    const { io, out } = capture({});
    expect(await main(["doctor", dir, "--state-root", join(dir, "state"), "--port", "1"], io)).toBe(3);
    expect(out.stdout).toMatch(/^FAIL {2}bundle/m);
  });

  it("exits 1 when the state root is not writable or the port is taken by another program", async () => {
    const dir = stateRoot();
    const blocker = join(dir, "file");
    writeFileSync(blocker, "not a directory");
    const port = fakeApi(() => new Response("", { status: 418 }));
    const { io, out } = capture({ PLAN_TEST_SECRET: "x" });
    expect(await main(["doctor", BUNDLE, "--state-root", join(blocker, "state"), "--port", port], io)).toBe(1);
    expect(out.stdout).toMatch(/^FAIL {2}state root/m);
    expect(out.stdout).toMatch(/^FAIL {2}port/m);
  });
});
