import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import type { Message } from "../../src/protocol/conversation.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-history-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "goondan.db");
}

function open(file = tempFile()): SqliteStore {
  const store = new SqliteStore(file);
  defer(() => store.close());
  return store;
}

const message = (id: string): Message => ({
  id,
  data: { role: "user", content: `text of ${id}` },
  metadata: {},
  createdAt: "2026-11-23T00:00:00.000Z",
  source: { type: "user" },
});
const instance = { swarm: "s", agent: "a", instanceKey: "k" };
const ids = (messages: readonly Message[]) => messages.map((entry) => entry.id);
const appends = (names: string[]) => names.map((id) => ({ type: "append" as const, message: message(id) }));

describe("archived messages", () => {
  it("leave the conversation a child is handed but stay in the history, in order", async () => {
    const store = open();
    await store.commit(instance, { changes: appends(["m1", "m2", "m3", "m4"]) });
    await store.commit(instance, {
      changes: [
        { type: "remove", targetId: "m1", archive: true },
        { type: "remove", targetId: "m2", archive: true },
      ],
    });
    await store.commit(instance, { changes: appends(["m5"]) });
    expect(ids(store.instanceState(instance).messages)).toEqual(["m3", "m4", "m5"]);
    expect(ids(await store.olderMessages(instance, {}))).toEqual(["m1", "m2", "m3", "m4", "m5"]);
  });

  it("are read back a page at a time before a message, oldest first", async () => {
    const store = open();
    await store.commit(instance, { changes: appends(["m1", "m2", "m3", "m4", "m5"]) });
    await store.commit(instance, { changes: [{ type: "truncate", archive: true }] });
    await store.commit(instance, { changes: appends(["m6"]) });
    expect(ids(await store.olderMessages(instance, { before: "m6", limit: 2 }))).toEqual(["m4", "m5"]);
    expect(ids(await store.olderMessages(instance, { before: "m4", limit: 2 }))).toEqual(["m2", "m3"]);
    expect(ids(await store.olderMessages(instance, { before: "m2", limit: 2 }))).toEqual(["m1"]);
    expect(ids(await store.olderMessages(instance, { before: "m1" }))).toEqual([]);
    expect(await store.olderMessages(instance, { before: "never-there" })).toEqual([]);
  });

  it("numbers appends after an archived truncate past the archived ones, across a reopen", async () => {
    const file = tempFile();
    const first = new SqliteStore(file);
    await first.commit(instance, { changes: [...appends(["m1", "m2"]), { type: "truncate", archive: true }] });
    await first.close();
    const second = open(file);
    await second.commit(instance, { changes: appends(["m3"]) });
    expect(ids(await second.olderMessages(instance, {}))).toEqual(["m1", "m2", "m3"]);
  });

  it("are deleted, not archived, by a remove or truncate without archive", async () => {
    const store = open();
    await store.commit(instance, { changes: appends(["m1", "m2", "m3"]) });
    await store.commit(instance, { changes: [{ type: "remove", targetId: "m1" }, { type: "truncate" }] });
    expect(await store.olderMessages(instance, {})).toEqual([]);
  });

  it("go with a --fresh restart and with a deleted instance", async () => {
    const store = open();
    await store.commit(instance, {
      changes: [...appends(["m1", "m2"]), { type: "remove", targetId: "m1", archive: true }],
    });
    await store.clearConversation(instance);
    expect(await store.olderMessages(instance, {})).toEqual([]);
    await store.commit(instance, { changes: [...appends(["m3"]), { type: "truncate", archive: true }] });
    await store.deleteInstance(instance);
    expect(await store.olderMessages(instance, {})).toEqual([]);
  });

  it("travel in an instance snapshot, before the conversation", async () => {
    const from = open();
    await from.commit(instance, {
      changes: [...appends(["m1", "m2", "m3"]), { type: "remove", targetId: "m1", archive: true }],
    });
    const snapshot = from.exportInstance(instance);
    expect(ids(snapshot.archived ?? [])).toEqual(["m1"]);
    const to = open();
    await to.importInstance(instance, snapshot);
    expect(ids(to.instanceState(instance).messages)).toEqual(["m2", "m3"]);
    expect(ids(await to.olderMessages(instance, {}))).toEqual(["m1", "m2", "m3"]);
  });

  it("pages are at most 500 messages whatever the limit asked", async () => {
    const store = open();
    await store.commit(instance, { changes: appends(Array.from({ length: 600 }, (_, index) => `m${index}`)) });
    expect((await store.olderMessages(instance, { limit: 10_000 })).length).toBe(500);
    expect((await store.olderMessages(instance, { limit: 0 })).length).toBe(1);
  });

  it("opens a database of schema version 1 and adds the history table to it", async () => {
    const file = tempFile();
    const old = new Database(file, { create: true });
    old.exec(
      "CREATE TABLE messages (swarm TEXT NOT NULL, agent TEXT NOT NULL, instance_key TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, message TEXT NOT NULL, PRIMARY KEY (swarm, agent, instance_key, seq)) WITHOUT ROWID",
    );
    old.query("INSERT INTO messages VALUES ('s', 'a', 'k', 1, 'm1', ?)").run(JSON.stringify(message("m1")));
    old.exec("PRAGMA user_version = 1");
    old.close();
    const store = open(file);
    await store.commit(instance, { changes: [{ type: "remove", targetId: "m1", archive: true }] });
    expect(ids(await store.olderMessages(instance, {}))).toEqual(["m1"]);
  });

  it("opens a database of schema version 2 and moves its conversations into the appended table, in order", async () => {
    const file = tempFile();
    const old = new Database(file, { create: true });
    old.exec(`CREATE TABLE messages (
      swarm TEXT NOT NULL, agent TEXT NOT NULL, instance_key TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
      message TEXT NOT NULL, PRIMARY KEY (swarm, agent, instance_key, seq)) WITHOUT ROWID`);
    old.exec("CREATE UNIQUE INDEX messages_id ON messages (swarm, agent, instance_key, id)");
    const insert = old.query("INSERT INTO messages VALUES ('s', 'a', ?, ?, ?, ?)");
    // Written out of order, across two conversations.
    for (const [key, seq, id] of [
      ["k", 2, "m2"],
      ["other", 1, "o1"],
      ["k", 1, "m1"],
      ["k", 3, "m3"],
    ] as const)
      insert.run(key, seq, id, JSON.stringify(message(id)));
    old.exec("PRAGMA user_version = 2");
    old.close();
    const store = open(file);
    expect(ids(store.instanceState(instance).messages)).toEqual(["m1", "m2", "m3"]);
    expect(ids(store.instanceState({ ...instance, instanceKey: "other" }).messages)).toEqual(["o1"]);
    // Appends go on after the last seq, and an id is still kept once.
    await store.commit(instance, { changes: appends(["m4", "m1"]) });
    expect(ids(store.instanceState(instance).messages)).toEqual(["m1", "m2", "m3", "m4"]);
    await store.close();
    const db = new Database(file, { readonly: true });
    defer(() => db.close());
    const tables = db.query("SELECT name, sql FROM sqlite_schema WHERE name LIKE 'messages%'").all() as {
      name: string;
      sql: string;
    }[];
    expect(tables.map((table) => table.name).sort()).toEqual(["messages", "messages_id"]);
    expect(tables.find((table) => table.name === "messages")?.sql).not.toContain("WITHOUT ROWID");
    expect(db.query("PRAGMA user_version").get()).toEqual({ user_version: 3 });
  });
});
