import { afterEach, describe, expect, it } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import { checkAgentSandbox, checkIsolation } from "../../src/cli/commands/doctor.ts";
import { PidNamespaceSandbox } from "../../src/tools/pid-namespace-sandbox.ts";
import { capture, cleanUpOperatorFixtures, fakeApi, servers, stateRoot } from "./support/operator-fixture.ts";

afterEach(cleanUpOperatorFixtures);

describe("goondan restart", () => {
  it("posts the agent and fresh flag to /v1/restart and reports acceptance", async () => {
    let received: unknown;
    const port = fakeApi(async (request) => {
      if (new URL(request.url).pathname !== "/v1/restart" || request.method !== "POST")
        return new Response("", { status: 404 });
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
      return Response.json(
        { accepted: true, issues: [], instance: { agent: "a", instanceKey: "k", known: true } },
        { status: 202 },
      );
    });
    const { io, out } = capture();
    expect(await main(["restart", "--agent", "a", "--instance", "k", "--fresh", "--port", port], io)).toBe(0);
    expect(received).toEqual({ agent: "a", instanceKey: "k", fresh: true });
    expect(out.stdout).toBe("restart accepted: agent a instance k with a fresh conversation\n");
    expect(out.stderr).toBe("");
  });

  it("notes an instance key the agent does not know, naming its known instances, and still exits 0", async () => {
    const port = fakeApi(() =>
      Response.json(
        {
          accepted: true,
          issues: [],
          instance: { agent: "a", instanceKey: "kk", known: false, agentInstances: ["k1", "k2"] },
        },
        { status: 202 },
      ),
    );
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
      Response.json(
        {
          accepted: false,
          issues: [
            { code: "E_CONFIG_REF_NOT_FOUND", path: "goondan.yaml#3.spec.tools[0]", message: "Tool/echo not found" },
          ],
          error: { code: "E_CONFIG_INVALID", message: "invalid" },
        },
        { status: 422 },
      ),
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
    if (process.platform === "linux")
      expect(out.stdout).toMatch(/^ok {4}isolation +bash tool commands run in their own PID namespace/m);
    if (process.platform === "linux")
      expect(out.stdout).toMatch(/^ok {4}agents +agent processes are sandboxed: own PID namespace/m);
  });

  it("warns, naming why, when agent processes cannot run in their sandbox", async () => {
    const check = await checkAgentSandbox(stateRoot(), { isolated: false, reason: "unshare failed: nope" });
    expect(check.outcome).toBe("warn");
    expect(check.detail).toContain("NOT sandboxed (unshare failed: nope)");
    expect(check.detail).toContain("spec.process.sandbox: required");
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
    writeFileSync(
      join(dir, "goondan.yaml"),
      "apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: lonely }\nspec: {}\n",
    );
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
