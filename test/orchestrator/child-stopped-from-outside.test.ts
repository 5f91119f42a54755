/**
 * A child that leaves on its own after a graceful stop (SIGTERM from outside, e.g. `kill -TERM -<pgid>`):
 * it finished its turn and said `shutdown_ack`, so the supervisor records no crash and does not respawn it
 * (the orchestrator is most likely shutting down too); the next work starts it again.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import { FakeSpawner } from "../helpers/fake-spawner.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { testBundle } from "../fixtures/orchestrator/test-bundle.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function setup() {
  const root = mkdtempSync(join(tmpdir(), "goondan-orch-"));
  roots.push(root);
  const spawner = new FakeSpawner();
  const orchestrator = new Orchestrator({
    bundle: testBundle({ agents: ["a"] }),
    stateRoot: root,
    spawner,
    clock: new ManualClock(),
  });
  return { orchestrator, spawner };
}

describe("a child stopped from outside", () => {
  it("is not counted as a crash nor respawned, and the next event starts it again with the waiting ones first", async () => {
    const { orchestrator, spawner } = setup();
    const first = orchestrator.submit({ input: "one" });
    const second = orchestrator.submit({ input: "two" });
    const child = spawner.latest("a");
    child.ready();
    child.reply({ response: "first done" });
    child.emit("shutdown_ack", { reason: "SIGTERM" });
    child.exit({ code: 0, signal: null });
    expect(await first.outcome).toMatchObject({ status: "ok", response: "first done" });
    expect(spawner.of("a")).toHaveLength(1);
    expect(orchestrator.processes()).toEqual([]);
    expect((await orchestrator.instances())[0]).toMatchObject({ agent: "a", status: "terminated" });

    orchestrator.submit({ input: "three" });
    const next = spawner.latest("a");
    expect(next).not.toBe(child);
    next.ready();
    expect(next.lastEvent().input).toBe("two");
    next.reply({ response: "second done" });
    expect(await second.outcome).toMatchObject({ status: "ok", response: "second done" });
    expect(spawner.violations).toEqual([]);
  });

  it("is still a crash when it exits without having said shutdown_ack", () => {
    const { orchestrator, spawner } = setup();
    orchestrator.submit({ input: "one" });
    const child = spawner.latest("a");
    child.ready();
    child.exit({ code: 0, signal: null });
    expect(spawner.of("a")).toHaveLength(2);
    expect(orchestrator.processes()[0]?.restarts).toBe(1);
  });
});
