/**
 * A new orchestrator on the same state root picks up what the last one accepted and did not answer, whether that
 * one wrote it to the store or, before the store existed, to JSONL files under an old directory name.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { legacySafeName } from "../../src/shared/migrate-safe-names.ts";
import { instancePaths } from "../../src/shared/state-paths.ts";
import { removeRoots, roots, setup } from "./routing/routing-harness.ts";

afterEach(removeRoots);

describe("Orchestrator durability across restarts", () => {
  it("a new orchestrator on the same state root resumes every accepted, unanswered event", async () => {
    const first = setup();
    first.orchestrator.submit({ input: "answered" });
    first.spawner.latest("a").ready();
    first.spawner.latest("a").reply();
    const pendingEvent = first.orchestrator.submit({ input: "unanswered" });
    await first.orchestrator.submit({ input: "for b", agent: "b" }).accepted;

    const second = setup({ stateRoot: first.stateRoot });
    expect(await second.orchestrator.start()).toEqual({ resumed: 2 });
    const a = second.spawner.latest("a");
    a.ready();
    expect(a.events().map((delivered) => delivered.event.id)).toEqual([pendingEvent.eventId]);
    second.spawner.latest("b").ready();
    expect(second.spawner.latest("b").lastEvent().input).toBe("for b");
  });

  it("resumes an inbox an older goondan kept in JSONL under the old directory name: moved to its current name, then imported", async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-orch-"));
    roots.push(stateRoot);
    const event = {
      id: "evt_before_upgrade",
      type: "user.input",
      agent: "a",
      instanceKey: "사용자-1",
      input: "from before the upgrade",
      source: { kind: "api", name: "api" },
      metadata: {},
      callChain: [],
      traceId: "0".repeat(32),
      createdAt: "2026-01-01T00:00:00.000Z",
    };
    const instances = join(stateRoot, "workspaces", "test-swarm", "instances", "a");
    const legacy = join(instances, legacySafeName("사용자-1"));
    mkdirSync(join(legacy, "inbox"), { recursive: true });
    writeFileSync(join(legacy, "inbox", "journal.jsonl"), `${JSON.stringify({ op: "accept", event, at: 1 })}\n`);

    const { orchestrator, spawner } = setup({ stateRoot });
    expect(await orchestrator.start()).toEqual({ resumed: 1 });
    expect(existsSync(legacy)).toBe(false);
    expect(
      existsSync(
        join(
          instancePaths({
            stateRoot,
            swarmInstanceKey: orchestrator.swarm.instanceKey,
            agent: "a",
            instanceKey: "사용자-1",
          }).root,
          "imported-jsonl",
          "inbox",
          "journal.jsonl",
        ),
      ),
    ).toBe(true);
    const a = spawner.latest("a", "사용자-1");
    a.ready();
    expect(a.lastEvent().id).toBe(event.id);
  });
});
