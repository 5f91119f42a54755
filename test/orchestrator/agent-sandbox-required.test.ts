/**
 * An Agent whose `spec.process.sandbox` is `required`, on a machine that refuses the sandbox: its instance never
 * starts, and its waiting event is answered at once (retrying cannot help) naming E_AGENT_SANDBOX_UNAVAILABLE;
 * an `auto` agent beside it starts as is. The spawn requests carry the Agent's setting and the paths to keep.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { probeAgentSandbox, type AgentSandbox } from "../../src/supervision/agent-sandbox.ts";
import type { ChildProcessHandle, SpawnRequest } from "../../src/supervision/process-spawner.ts";
import { FakeSpawner } from "../helpers/fake-spawner.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { testBundle } from "../fixtures/orchestrator/test-bundle.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** The fake spawner, asking the sandbox first as the Bun spawner does. */
class SandboxedFakeSpawner extends FakeSpawner {
  readonly requests: SpawnRequest[] = [];
  constructor(private readonly sandbox: AgentSandbox) {
    super();
  }
  override spawn(request: SpawnRequest): ChildProcessHandle {
    this.requests.push(request);
    if (request.sandbox !== undefined) this.sandbox.launcher(request.sandbox);
    return super.spawn(request);
  }
}

describe("spec.process.sandbox: required on a machine without the sandbox", () => {
  it("answers the waiting event at once with E_AGENT_SANDBOX_UNAVAILABLE; an auto agent starts as is", async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-sandbox-required-"));
    roots.push(stateRoot);
    const sandbox = await probeAgentSandbox({ stateRoot, logger: silentLogger(), helperPath: "/nonexistent" });
    expect(sandbox.state.isolated).toBe(false);
    const bundle = testBundle({ agents: ["a", "b"] });
    for (const resource of bundle.resources)
      if (resource.kind === "Agent" && resource.metadata.name === "b")
        resource.spec.process = {
          isolation: "agent",
          sandbox: "required",
          maxProcesses: 1,
          maxInstancesPerProcess: 10,
        };
    const spawner = new SandboxedFakeSpawner(sandbox);
    const orchestrator = new Orchestrator({ bundle, stateRoot, spawner, clock: new ManualClock() });
    await orchestrator.start();

    const refused = orchestrator.submit({ input: "x", agent: "b" });
    const outcome = await refused.outcome;
    expect(outcome).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(outcome.error?.message).toContain("E_AGENT_SANDBOX_UNAVAILABLE");
    // One attempt, refused before any child: given up at once, not retried.
    expect(spawner.requests.filter((request) => request.address.startsWith("b/"))).toHaveLength(1);
    expect(spawner.of("b")).toHaveLength(0);

    orchestrator.submit({ input: "y", agent: "a" });
    await Bun.sleep(0);
    const started = spawner.latest("a");
    expect(started).toBeDefined();
    const request = spawner.requests.find((candidate) => candidate.address.startsWith("a"));
    expect(request?.sandbox).toMatchObject({ setting: "auto" });
    expect(request?.sandbox?.keep[0]).toContain(join(stateRoot, "workspaces"));
  });
});
