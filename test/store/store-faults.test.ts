/**
 * Store faults of the embedded store, on a real SQLite file: a write the disk cannot hold refuses every write of its
 * tick with E_STORE_UNAVAILABLE and runs none of their `committed` callbacks, and the store writes again once space
 * frees; a commit refused at COMMIT (not at its statement) is refused the same way; a damaged page is read as
 * E_STORE_CORRUPT naming the file and the remedy; and the integrity check at start finds a damaged runtime_events page
 * that the open's look at each table does not.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { checkStateStore } from "../../src/store/open-state-store.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { WriteBatch } from "../../src/store/sqlite/write-batch.ts";
import { dbOf, fillDisk } from "../helpers/full-disk.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function stateRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "goondan-store-faults-"));
  roots.push(root);
  return root;
}

const event = (id: string, input = "hello"): AgentEvent =>
  ({
    id,
    type: "user.input",
    agent: "a",
    instanceKey: "k",
    input,
    source: { kind: "api", name: "api" },
    callChain: [],
    metadata: {},
    traceId: "t",
    createdAt: new Date(0).toISOString(),
  }) as unknown as AgentEvent;

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "stored",
    (error: { code?: string }) => error.code,
  );

describe("store faults", () => {
  it("refuses every write of a tick the disk cannot hold with E_STORE_UNAVAILABLE, tells none of them committed, and writes again once space frees", async () => {
    const file = join(stateRoot(), "goondan.db");
    const store = new SqliteStore(file);
    await store.accept("s", event("e0"), 0);
    const disk = fillDisk(store);
    const committed: string[] = [];
    const small = store.accept("s", event("e1"), 1, { committed: () => committed.push("e1") });
    const large = store.accept("s", event("e2", "x".repeat(300_000)), 2, { committed: () => committed.push("e2") });
    expect(await codeOf(large)).toBe("E_STORE_UNAVAILABLE");
    expect(await codeOf(small)).toBe("E_STORE_UNAVAILABLE");
    expect(committed).toEqual([]);
    expect(await store.inboxRecord("s", "e1")).toBeUndefined();
    disk.free();
    await store.accept("s", event("e3", "x".repeat(300_000)), 3, { committed: () => committed.push("e3") });
    expect(committed).toEqual(["e3"]);
    expect((await store.unanswered("s")).map((record) => record.event.id)).toEqual(["e0", "e3"]);
    await store.close();
  });

  it("rejects every write of a batch whose COMMIT fails, without calling their committed callbacks", async () => {
    const file = join(stateRoot(), "batch.db");
    const db = new Database(file);
    db.exec("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON");
    db.exec("CREATE TABLE p (id INTEGER PRIMARY KEY)");
    db.exec("CREATE TABLE c (pid INTEGER REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)");
    const batch = new WriteBatch(db, file);
    const committed: string[] = [];
    const good = batch.durable(() => db.exec("INSERT INTO p VALUES (1)"), { committed: () => committed.push("good") });
    // Passes as a statement, refused at COMMIT: as a full disk refuses the log's write.
    const bad = batch.durable(() => db.exec("INSERT INTO c VALUES (2)"), { committed: () => committed.push("bad") });
    expect(await codeOf(good)).not.toBe("stored");
    expect(await codeOf(bad)).not.toBe("stored");
    expect(committed).toEqual([]);
    expect(db.query("SELECT COUNT(*) AS n FROM p").get()).toEqual({ n: 0 });
    await batch.durable(() => db.exec("INSERT INTO p VALUES (3)"), { committed: () => committed.push("next") });
    expect(committed).toEqual(["next"]);
    await batch.close();
    db.close();
  });

  it("answers a read of a damaged page with E_STORE_CORRUPT naming the file and `goondan backup`", async () => {
    const root = stateRoot();
    const file = join(root, "goondan.db");
    const leaf = await damagedRuntimeEvents(file);
    const store = new SqliteStore(file);
    const error = (await store.runtimeEvents({ swarm: "s" }).catch((caught: unknown) => caught)) as {
      code?: string;
      message: string;
      suggestion?: string;
    };
    expect(leaf).toBeGreaterThan(1);
    expect(error.code).toBe("E_STORE_CORRUPT");
    expect(error.message).toContain(file);
    expect(error.suggestion).toContain("goondan backup");
    await store.close();
  });

  it("finds a damaged runtime_events page at start, which opening the database does not", async () => {
    const root = stateRoot();
    const file = join(root, "goondan.db");
    await damagedRuntimeEvents(file);
    // Opening looks at each table's first page only: it opens.
    await new SqliteStore(file).close();
    const logger = silentLogger();
    const refused = (await checkStateStore({ stateRoot: root, logger }).catch((error: unknown) => error)) as {
      code?: string;
      message: string;
      suggestion?: string;
    };
    expect(refused.code).toBe("E_STORE_CORRUPT");
    expect(refused.message).toContain(file);
    expect(refused.suggestion).toContain("goondan backup");
  });

  it("passes a sound database and an empty state root at start", async () => {
    const root = stateRoot();
    const logger = silentLogger();
    await checkStateStore({ stateRoot: root, logger });
    const store = new SqliteStore(join(root, "goondan.db"));
    store.appendRuntimeEvents("s", runtimeEvents(50));
    await store.close();
    await checkStateStore({ stateRoot: root, logger });
  });
});

function runtimeEvents(count: number): RuntimeEvent[] {
  return Array.from(
    { length: count },
    (_, i) =>
      ({
        type: "turn.started",
        agent: "a",
        instanceKey: "k",
        turnId: `turn_${i}`,
        traceId: `trace_${i}`,
        timestamp: new Date(0).toISOString(),
        padding: "p".repeat(400),
      }) as unknown as RuntimeEvent,
  );
}

/** A state database whose runtime_events table spans many pages, one leaf of which is overwritten with junk; its page number. */
async function damagedRuntimeEvents(file: string): Promise<number> {
  const store = new SqliteStore(file);
  store.appendRuntimeEvents("s", runtimeEvents(400));
  store.flush();
  const db = dbOf(store);
  const leaf = (
    db
      .query(
        "SELECT pageno FROM dbstat WHERE name = 'runtime_events' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 3",
      )
      .get() as { pageno: number }
  ).pageno;
  const pageSize = (db.query("PRAGMA page_size").get() as { page_size: number }).page_size;
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  await store.close();
  const fd = openSync(file, "r+");
  writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (leaf - 1) * pageSize);
  closeSync(fd);
  return leaf;
}
