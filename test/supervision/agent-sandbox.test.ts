/**
 * The agent sandbox (src/supervision/agent-sandbox.ts) with real processes: a process started through its launcher
 * sees its kept instances' directory (writable) and the read-only files, and nothing else of the state root; it
 * cannot unmount the cover; it sees no other process; it keeps the machine's network. Where the machine refuses
 * (no unshare), `auto` runs as is with one warning, `required` refuses with E_AGENT_SANDBOX_UNAVAILABLE, and `none`
 * never sandboxes. The end-to-end attack under goondan run is test/orchestrator/agent-sandbox.integration.test.ts.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanups } from "../helpers/cleanups.ts";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { probeAgentSandbox } from "../../src/supervision/agent-sandbox.ts";
import { bunProcessSpawner, type ChildExit } from "../../src/supervision/process-spawner.ts";
import { until } from "../helpers/goondan-process.ts";
import { createLogger, silentLogger } from "../../src/shared/logger.ts";

const defer = useCleanups();
const onLinux = process.platform === "linux";

function stateRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-agent-sandbox-unit-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "api-token"), "secret-token");
  writeFileSync(join(dir, "snapshot.json"), "{}");
  mkdirSync(join(dir, "workspaces", "s", "instances", "other"), { recursive: true });
  writeFileSync(join(dir, "workspaces", "s", "instances", "other", "secret.txt"), "other's");
  return dir;
}

async function inside(prefix: string[], script: string): Promise<string> {
  const proc = Bun.spawn([...prefix, "/bin/sh", "-c", script], { stdout: "pipe", stderr: "pipe", cwd: "/" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  return out + err;
}

describe.skipIf(!onLinux)("the agent sandbox", () => {
  it("leaves in view only the kept directory (writable) and the read-only files", async () => {
    const root = stateRoot();
    const sandbox = await probeAgentSandbox({ stateRoot: root, logger: silentLogger() });
    expect(sandbox.state.isolated).toBe(true);
    const mine = join(root, "workspaces", "s", "instances", "mine");
    const prefix = sandbox.launcher({ setting: "required", keep: [mine], readOnly: [join(root, "snapshot.json")] });
    expect(prefix).toBeDefined();
    const out = await inside(
      prefix as string[],
      [
        `cat ${root}/api-token || echo no-token`,
        `cat ${root}/workspaces/s/instances/other/secret.txt || echo no-other`,
        `echo mine > ${mine}/w.txt && cat ${mine}/w.txt`,
        `cat ${root}/snapshot.json && (echo x > ${root}/snapshot.json || echo snapshot-read-only)`,
        `umount -l ${root} 2>/dev/null; cat ${root}/api-token 2>/dev/null || echo still-hidden`,
        "echo procs=$(ls /proc | grep -c '^[0-9]')",
      ].join("\n"),
    );
    expect(out).toContain("no-token");
    expect(out).not.toContain("secret-token");
    expect(out).toContain("no-other");
    expect(out).toContain("mine\n");
    expect(out).toContain("{}snapshot-read-only");
    expect(out).toContain("still-hidden");
    expect(Number(/procs=(\d+)/.exec(out)?.[1])).toBeLessThan(6);
  }, 30_000);

  it("keeps no path that a symlink leads to, nor one outside the state root", async () => {
    const root = stateRoot();
    const sandbox = await probeAgentSandbox({ stateRoot: root, logger: silentLogger() });
    const link = join(root, "workspaces", "s", "instances", "link");
    symlinkSync(join(root, "workspaces", "s", "instances", "other"), link);
    const prefix = sandbox.launcher({ setting: "auto", keep: [link], readOnly: ["/etc/hostname"] }) as string[];
    const out = await inside(prefix, `cat ${link}/secret.txt || echo not-kept`);
    expect(out).toContain("not-kept");
    expect(out).not.toContain("other's");
  }, 30_000);

  it("a spawned process's SIGTERM reaches the process in the sandbox (unshare keeps it from its child)", async () => {
    const root = stateRoot();
    const outside = mkdtempSync(join(tmpdir(), "goondan-agent-sandbox-term-"));
    defer(() => rmSync(outside, { recursive: true, force: true }));
    const entry = join(outside, "entry.ts");
    writeFileSync(
      entry,
      `process.on("SIGTERM", () => process.exit(7));\nrequire("node:fs").writeFileSync(${JSON.stringify(join(outside, "up"))}, String(process.pid));\nsetInterval(() => {}, 1000);\n`,
    );
    const sandbox = await probeAgentSandbox({ stateRoot: root, logger: silentLogger() });
    const spawner = bunProcessSpawner({ entryScript: entry, output: "ignore", sandbox });
    const handle = spawner.spawn({
      address: "a/k",
      argv: [],
      sandbox: { setting: "required", keep: [join(root, "workspaces", "s", "instances", "a")], readOnly: [] },
    });
    let exit: ChildExit | undefined;
    handle.onExit((ended) => (exit = ended));
    await until(() => existsSync(join(outside, "up")), { timeoutMs: 20_000 });
    expect(await Bun.file(join(outside, "up")).text()).toBe("1"); // its namespace's pid 1
    handle.kill("SIGTERM");
    await until(() => exit, { timeoutMs: 20_000 });
    expect(exit).toEqual({ code: 7, signal: null });
  }, 30_000);

  it("where the machine refuses: auto warns once and runs as is, required refuses with a code, none never asks", async () => {
    const lines: string[] = [];
    const logger = createLogger("test", { destination: { write: (line: string) => lines.push(line) } });
    const sandbox = await probeAgentSandbox({ stateRoot: stateRoot(), logger, helperPath: "/nonexistent" });
    expect(sandbox.state.isolated).toBe(false);
    const request = { keep: [], readOnly: [] };
    expect(sandbox.launcher({ ...request, setting: "auto" })).toBeUndefined();
    expect(sandbox.launcher({ ...request, setting: "auto" })).toBeUndefined();
    expect(lines.filter((line) => line.includes("WITHOUT their sandbox"))).toHaveLength(1);
    expect(() => sandbox.launcher({ ...request, setting: "required" })).toThrow(
      expect.objectContaining({ code: "E_AGENT_SANDBOX_UNAVAILABLE" }),
    );
    expect(sandbox.launcher({ ...request, setting: "none" })).toBeUndefined();
  });
});

describe("spec.process.sandbox", () => {
  const bundle = (process: string): string => {
    const dir = stateRoot();
    writeFileSync(
      join(dir, "goondan.yaml"),
      `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: m }
spec: { provider: openai-compatible, model: x, endpoint: "http://127.0.0.1:9/v1" }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: a }
spec: { modelConfig: { modelRef: Model/m }, prompt: { system: hi }, process: ${process} }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: s }
spec: { entryAgent: Agent/a, agents: [Agent/a] }
`,
    );
    return dir;
  };

  it("takes auto, required or none (auto by default), and names anything else with a coded error", async () => {
    const loaded = await loadBundle(bundle("{ sandbox: required }"), { checkModules: false });
    expect(loaded.errors).toEqual([]);
    const agent = loaded.bundle?.resources.find((resource) => resource.kind === "Agent");
    expect(agent?.kind === "Agent" ? agent.spec.process?.sandbox : undefined).toBe("required");
    const [issue] = (await loadBundle(bundle("{ sandbox: maybe }"), { checkModules: false })).errors;
    expect(issue?.code).toBe("E_CONFIG_SCHEMA_INVALID");
    expect(issue?.path).toContain("sandbox");
  });
});
