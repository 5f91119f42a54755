import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import type { ApprovalRequest } from "../../src/protocol/approval.ts";
import type { Message } from "../../src/protocol/conversation.ts";
import { canSnapshot } from "../../src/store/instance-snapshot.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { outcome, reply } from "../helpers/outcomes.ts";

const defer = useCleanups();

function open(): SqliteStore {
  const dir = mkdtempSync(join(tmpdir(), "goondan-snapshot-"));
  const store = new SqliteStore(join(dir, "goondan.db"));
  defer(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

const instance = { swarm: "s", agent: "a", instanceKey: "k" };
const other = { swarm: "s", agent: "a", instanceKey: "other" };
const event = (id: string, instanceKey = "k"): AgentEvent => ({
  id,
  type: "user.input",
  input: id,
  agent: "a",
  instanceKey,
  source: { kind: "api", name: "api" },
  traceId: "t",
  callChain: [],
  metadata: {},
  createdAt: "2026-11-23T00:00:00.000Z",
});
const message = (id: string, text: string): Message => ({
  id,
  data: { role: "user", content: text },
  metadata: {},
  createdAt: "2026-11-23T00:00:00.000Z",
  source: { type: "user" },
});
const approval = (id: string, eventId: string): ApprovalRequest => ({
  id,
  agent: "a",
  instanceKey: "k",
  eventId,
  turnId: "turn",
  traceId: "t",
  toolCallId: `call_${id}`,
  toolName: "bash",
  arguments: { cmd: "ls" },
  requestedAt: 5,
});

/** An instance with every kind of state: answered and unanswered events, a crash, approvals, messages, results, extension state. */
async function filled(store: SqliteStore): Promise<void> {
  await store.accept("s", event("e1"), 1);
  await store.accept("s", event("e2"), 2);
  await store.accept("s", event("e3"), 3);
  await store.accept("s", event("x1", "other"), 4);
  await store.commit(
    instance,
    {
      changes: [
        { type: "append", message: message("m1", "one") },
        { type: "append", message: message("m2", "two") },
        { type: "replace", targetId: "m1", message: message("m1b", "one, edited") },
      ],
      extensionState: { memo: { notes: ["a"] } },
    },
    outcome({ eventId: "e1", response: "done" }),
  );
  await store.addPendingResult(instance, reply({ correlationId: "corr_2", response: "late answer" }));
  await store.commit(
    instance,
    { approvals: { requested: [approval("ap1", "e2"), approval("ap2", "e2")] } },
    outcome({ eventId: "e2", status: "awaiting_approval" }),
  );
  await store.decideApproval("s", "ap1", { decision: "approve", decidedAt: 6 });
  store.recordInterrupted("s", "e3", "SIGKILL");
  await store.commit(other, { changes: [{ type: "append", message: message("o1", "other") }] });
}

describe("SqliteStore instance snapshots", () => {
  it("exports one instance and imports it into another store exactly, leaving other instances alone", async () => {
    const source = open();
    expect(canSnapshot(source)).toBe(true);
    await filled(source);
    const snapshot = source.exportInstance(instance);
    expect(snapshot.messages.map((entry) => entry.id)).toEqual(["m1b", "m2"]);
    expect(snapshot.inbox.map((entry) => [entry.event.id, entry.crashes, entry.outcome?.status])).toEqual([
      ["e1", 0, "ok"],
      ["e2", 0, "awaiting_approval"],
      ["e3", 1, undefined],
    ]);
    expect(snapshot.approvals.map((entry) => [entry.request.id, entry.decision?.decision, entry.applied])).toEqual([
      ["ap1", "approve", false],
      ["ap2", undefined, false],
    ]);

    const target = open();
    await target.commit(instance, {
      changes: [{ type: "append", message: message("stale", "old") }],
      added: [reply({ correlationId: "corr_old" })],
      extensionState: { old: 1 },
    });
    await target.commit(other, { changes: [{ type: "append", message: message("o9", "kept") }] });
    await target.importInstance(instance, JSON.parse(JSON.stringify(snapshot)));
    expect(target.exportInstance(instance)).toEqual(snapshot);
    expect(target.instanceState(other).messages.map((entry) => entry.id)).toEqual(["o9"]);
    // The imported store goes on as the source would: the next message follows, the last approval reopens e2.
    await target.commit(instance, { changes: [{ type: "append", message: message("m3", "three") }] });
    expect(target.instanceState(instance).messages.map((entry) => entry.id)).toEqual(["m1b", "m2", "m3"]);
    const decided = await target.decideApproval("s", "ap2", { decision: "deny", decidedAt: 7 });
    expect(decided.type === "decided" && decided.reopened?.event.id).toBe("e2");
    expect((await target.inboxRecord("s", "e1"))?.outcome?.response).toBe("done");
  });

  it("refuses a snapshot of another version and keeps what the instance held", async () => {
    const store = open();
    await store.commit(instance, { changes: [{ type: "append", message: message("m1", "one") }] });
    expect(() => store.importInstance(instance, { version: 2 } as never)).toThrow(
      expect.objectContaining({ code: "E_STORE_SNAPSHOT_INVALID" }),
    );
    await store.settled();
    expect(store.instanceState(instance).messages.map((entry) => entry.id)).toEqual(["m1"]);
  });
});
