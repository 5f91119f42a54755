import { describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { outcome } from "../helpers/outcomes.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { agentEvent } from "../helpers/agent-events.ts";

const defer = useCleanups();

const event = agentEvent;

/** A database as goondan 2 wrote it: the inbox with AUTOINCREMENT, three events accepted, the second answered. */
function versionTwoInbox(file: string): void {
  const old = new Database(file, { create: true });
  old.exec(`CREATE TABLE inbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, swarm TEXT NOT NULL, event_id TEXT NOT NULL, agent TEXT NOT NULL,
    instance_key TEXT NOT NULL, event TEXT NOT NULL, accepted_at INTEGER NOT NULL, crashes INTEGER NOT NULL DEFAULT 0,
    last_crash TEXT, outcome TEXT, answered_at INTEGER, UNIQUE (swarm, event_id))`);
  old.exec("CREATE INDEX inbox_unanswered ON inbox (swarm, seq) WHERE outcome IS NULL");
  const insert = old.query(
    `INSERT INTO inbox (seq, swarm, event_id, agent, instance_key, event, accepted_at, crashes, outcome)
     VALUES (?, 's', ?, 'a', 'k', ?, ?, ?, ?)`,
  );
  insert.run(7, "e1", JSON.stringify(event("e1")), 1, 2, null);
  insert.run(9, "e2", JSON.stringify(event("e2")), 2, 0, JSON.stringify(outcome({ eventId: "e2" })));
  insert.run(12, "e3", JSON.stringify(event("e3")), 3, 0, null);
  old.exec("PRAGMA user_version = 2");
  old.close();
}

describe("a database of schema version 2", () => {
  it("keeps its inbox, seq, crashes and answers, in a table without AUTOINCREMENT, and goes on counting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "goondan-migration-"));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "goondan.db");
    versionTwoInbox(file);
    const store = new SqliteStore(file);
    expect((await store.unanswered("s")).map((record) => [record.event.id, record.crashes])).toEqual([
      ["e1", 2],
      ["e3", 0],
    ]);
    expect((await store.inboxRecord("s", "e2"))?.outcome).toMatchObject({ eventId: "e2" });
    await store.accept("s", event("e4"), 4);
    await store.close();
    const db = new Database(file, { readonly: true });
    defer(() => db.close());
    expect(db.query("SELECT event_id, seq FROM inbox ORDER BY seq").all()).toEqual([
      { event_id: "e1", seq: 7 },
      { event_id: "e2", seq: 9 },
      { event_id: "e3", seq: 12 },
      { event_id: "e4", seq: 13 },
    ]);
    const sql = (db.query("SELECT sql FROM sqlite_schema WHERE name = 'inbox'").get() as { sql: string }).sql;
    expect(sql).not.toContain("AUTOINCREMENT");
    expect(db.query("SELECT name FROM sqlite_schema WHERE name LIKE 'inbox%' ORDER BY name").all()).toEqual([
      { name: "inbox" },
      { name: "inbox_unanswered" },
    ]);
    expect(db.query("SELECT name FROM sqlite_sequence WHERE name LIKE 'inbox%'").all()).toEqual([]);
  });
});
