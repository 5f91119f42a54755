import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { RUNTIME_EVENT_WRITE_INTERVAL_MS } from "../../src/store/sqlite/runtime-event-writer.ts";
import type { Message } from "../../src/protocol/conversation.ts";
import { outcome, reply } from "../helpers/outcomes.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { agentEvent } from "../helpers/agent-events.ts";
import { dbOf } from "../helpers/full-disk.ts";

const defer = useCleanups();

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-store-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "goondan.db");
}

function open(file = tempFile()): SqliteStore {
  const store = new SqliteStore(file);
  defer(() => store.close());
  return store;
}

const event = agentEvent;

const message = (id: string, text: string): Message => ({
  id,
  data: { role: "user", content: text },
  metadata: {},
  createdAt: "2026-11-23T00:00:00.000Z",
  source: { type: "user" },
});
const instance = { swarm: "s", agent: "a", instanceKey: "k" };

describe("SqliteStore", () => {
  it("finds the newest event id under a prefix and of a length, answered or not, across a reopen", async () => {
    const file = tempFile();
    const first = new SqliteStore(file);
    for (const id of [
      "tick-a-0000000000200",
      "tick-a-0000000000100",
      "tick-a-b-0000000000900",
      "tick-ab-0000000000999",
    ])
      await first.accept("s", event(id), 1);
    await first.answer("s", "tick-a-0000000000200", outcome({ eventId: "tick-a-0000000000200" }));
    await first.accept("other", event("tick-a-0000000000300"), 1);
    await first.close();
    const store = open(file);
    const query = { prefix: "tick-a-", length: "tick-a-".length + 13 };
    expect(await store.newestEventId("s", query)).toBe("tick-a-0000000000200");
    expect(await store.newestEventId("s", { prefix: "tick-z-", length: 20 })).toBeUndefined();
  });

  it("reads back the newest events under an id prefix, answered or not, newest first, within the swarm", async () => {
    const store = open();
    for (const id of ["a2a_1", "a2a_2", "evt_9", "a2a_3"]) await store.accept("s", event(id), 1);
    await store.accept("other", event("a2a_4"), 1);
    await store.answer("s", "a2a_2", outcome({ eventId: "a2a_2" }));
    const found = await store.eventsByIdPrefix("s", { idPrefix: "a2a_", limit: 2 });
    expect(found.map((record) => record.event.id)).toEqual(["a2a_3", "a2a_2"]);
    expect(found[1]?.outcome?.eventId).toBe("a2a_2");
    expect((await store.eventsByIdPrefix("s", { idPrefix: "a2a_", limit: 10 })).length).toBe(3);
  });

  it("keeps accepted events unanswered in acceptance order, once each, until an outcome answers them", async () => {
    const store = open();
    await Promise.all([
      store.accept("s", event("e1"), 1),
      store.accept("s", event("e2"), 2),
      store.accept("s", event("e1"), 3),
    ]);
    expect((await store.unanswered("s")).map((record) => record.event.id)).toEqual(["e1", "e2"]);
    await store.answer("s", "e1", outcome({ eventId: "e1", response: "one" }));
    expect((await store.unanswered("s")).map((record) => record.event.id)).toEqual(["e2"]);
    expect((await store.inboxRecord("s", "e1"))?.outcome?.response).toBe("one");
    expect(await store.unanswered("other")).toEqual([]);
  });

  it("makes writes of one tick durable with one commit (group commit), and each promise resolves after it", async () => {
    const store = open();
    const before = store.commits;
    await Promise.all(Array.from({ length: 50 }, (_, index) => store.accept("s", event(`e${index}`), index)));
    expect(store.commits - before).toBe(1);
  });

  it("applies a turn's commit in one transaction: messages, pending results shown and added, extension state, and the outcome", async () => {
    const file = tempFile();
    const store = new SqliteStore(file);
    await store.accept("s", event("e1"), 1);
    await store.addPendingResult(instance, reply({ correlationId: "c1", response: "async answer" }));
    await store.commit(
      instance,
      {
        changes: [
          { type: "append", message: message("m1", "hello") },
          { type: "append", message: message("m2", "there") },
        ],
        consumed: ["c1"],
        extensionState: { memo: { n: 1 } },
      },
      outcome({ eventId: "e1", response: "done" }),
    );
    await store.commit(instance, {
      changes: [
        { type: "replace", targetId: "m1", message: message("m1b", "hello again") },
        { type: "remove", targetId: "m2" },
        { type: "append", message: message("m3", "last") },
      ],
    });
    await store.close();
    const reopened = open(file);
    expect(reopened.instanceState(instance)).toEqual({
      messages: [message("m1b", "hello again"), message("m3", "last")],
      pendingResults: [],
      extensionState: { memo: { n: 1 } },
    });
    expect(await reopened.unanswered("s")).toEqual([]);
    expect(await reopened.instances("s")).toMatchObject([
      { agent: "a", instanceKey: "k", messages: 2, pendingResults: 0 },
    ]);
  });

  it("hands a new conversation an empty state without reading, until a write of its state or a reopen", async () => {
    const file = tempFile();
    const store = new SqliteStore(file);
    const fresh = (instanceKey: string) => ({ ...instance, instanceKey });
    await store.accept("s", event("e1", { instanceKey: "new" }), 1);
    // Rows behind the store's back are not read: the store made this instance's row, and nothing wrote its state.
    dbOf(store).exec("INSERT INTO extension_state VALUES ('s', 'a', 'new', 'unseen', '1')");
    expect(store.instanceState(fresh("new"))).toEqual({ messages: [], pendingResults: [], extensionState: {} });
    // Its first turn appends from seq 1, and what it commits is read back.
    await store.commit(fresh("new"), { changes: [{ type: "append", message: message("m1", "hi") }] });
    await store.commit(fresh("new"), { changes: [{ type: "append", message: message("m2", "again") }] });
    expect(store.instanceState(fresh("new"))).toMatchObject({ messages: [{ id: "m1" }, { id: "m2" }] });
    // A reply stored before the first turn is read back too.
    await store.accept("s", event("e2", { instanceKey: "replied" }), 1);
    await store.addPendingResult(fresh("replied"), reply({ correlationId: "c1", response: "late" }));
    expect(store.instanceState(fresh("replied")).pendingResults).toHaveLength(1);
    // So is a conversation imported over a new one.
    await store.accept("s", event("e3", { instanceKey: "imported" }), 1);
    await store.importInstance(fresh("imported"), store.exportInstance(fresh("new")));
    expect(store.instanceState(fresh("imported")).messages.map((m) => m.id)).toEqual(["m1", "m2"]);
    await store.close();
    // After a reopen an existing instance is read from its rows, whatever is accepted for it.
    const reopened = open(file);
    await reopened.accept("s", event("e4", { instanceKey: "new" }), 2);
    expect(reopened.instanceState(fresh("new"))).toMatchObject({
      messages: [{ id: "m1" }, { id: "m2" }],
      extensionState: { unseen: 1 },
    });
  });

  it("appends a message id once, and clears a conversation for a fresh restart while keeping extension state", async () => {
    const store = open();
    const append = { type: "append" as const, message: message("m1", "once") };
    await store.commit(instance, { changes: [append, append], extensionState: { memo: 1 } });
    expect(store.instanceState(instance).messages).toHaveLength(1);
    expect(await store.clearConversation(instance)).toBe(true);
    expect(store.instanceState(instance)).toEqual({
      messages: [],
      pendingResults: [],
      extensionState: { memo: 1 },
    });
    await store.commit(instance, { changes: [{ type: "append", message: message("m2", "after") }] });
    expect(store.instanceState(instance).messages.map((m) => m.id)).toEqual(["m2"]);
  });

  it("counts crashes durably and keeps runtime events queryable by instance, turn and trace", async () => {
    const store = open();
    await store.accept("s", event("e1"), 1);
    store.recordInterrupted("s", "e1", "it was killed by SIGKILL");
    const base = { agent: "a", instanceKey: "k", spanId: "sp", at: "2026-11-23T00:00:00.000Z" } as const;
    store.appendRuntimeEvents("s", [
      { ...base, type: "turn.started", traceId: "t1", turnId: "turn1" },
      { ...base, type: "turn.completed", traceId: "t1", turnId: "turn1" },
      { ...base, agent: "b", type: "turn.started", traceId: "t2", turnId: "turn2" },
    ]);
    await store.accept("s", event("e2"), 2);
    expect(await store.inboxRecord("s", "e1")).toMatchObject({ crashes: 1, lastCrash: "it was killed by SIGKILL" });
    expect(
      (await store.runtimeEvents({ swarm: "s", agent: "a", instanceKey: "k" })).map((row) => row.event.type),
    ).toEqual(["turn.started", "turn.completed"]);
    expect((await store.runtimeEvents({ swarm: "s", traceId: "t2" })).map((row) => row.event.agent)).toEqual(["b"]);
    expect((await store.runtimeEvents({ swarm: "s", turnId: "turn1", limit: 1 })).map((row) => row.event.type)).toEqual(
      ["turn.completed"],
    );
    const first = (await store.runtimeEvents({ swarm: "s" }))[0]!;
    expect(await store.runtimeEvents({ swarm: "s", after: first.cursor })).toHaveLength(2);
  });

  it("writes runtime events appended apart in one commit of their own, and a read sees them before that", async () => {
    const store = open();
    const base = { agent: "a", instanceKey: "k", spanId: "sp", traceId: "t1", at: "2026-11-23T00:00:00.000Z" } as const;
    for (let batch = 0; batch < 5; batch += 1) {
      store.appendRuntimeEvents("s", [{ ...base, type: "step.started", stepIndex: batch }]);
      await Bun.sleep(1);
    }
    // The one commit so far reserves the first block of cursors.
    expect(store.commits).toBe(1);
    await Bun.sleep(RUNTIME_EVENT_WRITE_INTERVAL_MS * 3);
    expect(store.commits).toBe(2);
    expect(store.syncs).toBe(0);
    store.appendRuntimeEvents("s", [{ ...base, type: "turn.completed" }]);
    expect((await store.runtimeEvents({ swarm: "s" })).map((row) => row.event.stepIndex ?? row.event.type)).toEqual([
      0,
      1,
      2,
      3,
      4,
      "turn.completed",
    ]);
  });

  it("gives runtime events their cursors when appended, and never gives one again after a crash lost its event", async () => {
    const file = tempFile();
    const first = open(file);
    const base = { agent: "a", instanceKey: "k", spanId: "sp", traceId: "t1", at: "2026-11-23T00:00:00.000Z" } as const;
    const given = first.appendRuntimeEvents("s", [
      { ...base, type: "turn.started" },
      { ...base, type: "step.started", stepIndex: 0 },
    ]);
    expect(given.map((row) => row.cursor)).toEqual([given[0]!.cursor, given[0]!.cursor + 1]);
    expect(await first.runtimeEvents({ swarm: "s" })).toEqual(given);
    await new Promise((resolve) => setImmediate(resolve)); // the read's transaction is committed
    // Given, shown to a reader, and not written yet when the process dies: a second store on the file is the restart.
    const lost = first.appendRuntimeEvents("s", [{ ...base, type: "turn.completed" }]);
    const second = open(file);
    const after = second.appendRuntimeEvents("s", [{ ...base, type: "turn.started" }]);
    expect(after[0]!.cursor).toBeGreaterThan(lost[0]!.cursor);
    expect((await second.runtimeEvents({ swarm: "s" })).map((row) => row.cursor)).toEqual([
      given[0]!.cursor,
      given[1]!.cursor,
      after[0]!.cursor,
    ]);
  });

  it("refuses a file that is not a goondan database with E_STORE_UNREADABLE naming the file and what to do", () => {
    const file = tempFile();
    writeFileSync(
      file,
      "this is not a database, just some text that happens to be long enough to look like a header".repeat(20),
    );
    expect(() => new SqliteStore(file)).toThrow(
      expect.objectContaining({
        code: "E_STORE_UNREADABLE",
        message: expect.stringContaining(file),
        suggestion: expect.stringContaining("backup"),
      }),
    );
  });

  it("syncs once for everything a tick wrote, not at all for writes nobody outside waits on, and keeps both across a reopen", async () => {
    const file = tempFile();
    const store = open(file);
    await Promise.all([
      store.accept("s", event("e1"), 1),
      store.accept("s", event("e2"), 2),
      store.commit(instance, { changes: [{ type: "append", message: message("m1", "hi") }] }),
    ]);
    expect({ commits: store.commits, syncs: store.syncs }).toEqual({ commits: 1, syncs: 1 });
    await store.accept("s", event("e3", { source: { kind: "agent", name: "b" } }), 3, { sync: false });
    await store.commit(
      instance,
      { changes: [{ type: "append", message: message("m2", "from an agent") }] },
      outcome({ eventId: "e3" }),
      { sync: false },
    );
    expect({ commits: store.commits, syncs: store.syncs }).toEqual({ commits: 3, syncs: 1 });
    await store.close();
    const reopened = open(file);
    expect((await reopened.unanswered("s")).map((record) => record.event.id)).toEqual(["e1", "e2"]);
    expect(reopened.instanceState(instance).messages.map((m) => m.id)).toEqual(["m1", "m2"]);
  });
});
