import { describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../../src/protocol/conversation.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { until } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();
const instance = { swarm: "s", agent: "a", instanceKey: "k" };
const message = (id: string): Message => ({
  id,
  data: { role: "user", content: `${id} ${"x".repeat(2000)}` },
  metadata: {},
  createdAt: "2026-11-23T00:00:00.000Z",
  source: { type: "user" },
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-checkpoint-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "goondan.db");
}

describe("the checkpoint worker", () => {
  it("turns off SQLite's automatic checkpoint on the store's connection and copies the log back from a worker thread", async () => {
    const file = tempFile();
    const store = new SqliteStore(file);
    defer(() => store.close());
    // 3,000 messages of 2 KB over many ticks: past the 1000-page automatic threshold several times.
    for (let batch = 0; batch < 30; batch += 1) {
      await store.commit(instance, {
        changes: Array.from({ length: 100 }, (_, index) => ({
          type: "append" as const,
          message: message(`m${batch}-${index}`),
        })),
      });
    }
    await until(() => (store.checkpointer?.checkpointed ?? 0) > 1000, { timeoutMs: 5_000 });
    expect(store.checkpointer?.lastError).toBeUndefined();
    expect(store.instanceState(instance).messages).toHaveLength(3000);
    await store.close();
    // Everything is in the database file itself once the store is closed (the last connection checkpoints the rest).
    const db = new Database(file, { readonly: true });
    defer(() => db.close());
    expect((db.query("SELECT COUNT(*) AS n FROM messages").get() as { n: number }).n).toBe(3000);
    expect(statSync(file).size).toBeGreaterThan(3000 * 2000);
  });

  it("leaves operator connections (existing databases opened by a command) to SQLite's own checkpoint", async () => {
    const file = tempFile();
    const live = new SqliteStore(file);
    await live.close();
    const operator = new SqliteStore(file, { existing: true });
    defer(() => operator.close());
    expect(operator.checkpointer).toBeUndefined();
  });

  it("never holds the store's writes for long while a reader holds a snapshot of a log past its limit", async () => {
    const file = tempFile();
    const store = new SqliteStore(file);
    defer(() => store.close());
    await store.commit(instance, { changes: [{ type: "append", message: message("first") }] });
    // An old snapshot keeps the log from being copied back (and cut) while it grows past its 4 MiB limit.
    const old = new Database(file, { readonly: true });
    defer(() => old.close());
    old.exec("BEGIN");
    old.query("SELECT COUNT(*) FROM messages").get();
    for (let batch = 0; batch < 30; batch += 1) {
      await store.commit(instance, {
        changes: Array.from({ length: 100 }, (_, index) => ({
          type: "append" as const,
          message: message(`m${batch}-${index}`),
        })),
      });
    }
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(4 * 1024 * 1024);
    // Another process reading the state root (goondan logs, goondan backup) holds a snapshot of the whole log; the
    // old one ends, so the worker copies every frame back and tries to TRUNCATE, which waits for that reader.
    const reader = new Database(file, { readonly: true });
    defer(() => reader.close());
    reader.exec("BEGIN");
    reader.query("SELECT COUNT(*) FROM messages").get();
    defer(() => void reader.exec("COMMIT"));
    const copied = store.checkpointer?.checkpointed ?? 0;
    old.exec("COMMIT");
    await until(() => (store.checkpointer?.checkpointed ?? 0) > copied, { timeoutMs: 10_000 });
    // Small writes for about two seconds, each timed to its commit: none waits out the TRUNCATE (it waited 5 s).
    let longestMs = 0;
    const until2s = performance.now() + 2_000;
    for (let index = 0; index < 400 && performance.now() < until2s; index += 1) {
      const started = performance.now();
      void store.commit(instance, { changes: [{ type: "append", message: message(`late-${index}`) }] }, undefined, {
        sync: false,
      });
      store.commitNow();
      longestMs = Math.max(longestMs, performance.now() - started);
      await Bun.sleep(5);
    }
    expect(longestMs).toBeLessThan(2_000);
    expect(store.instanceState(instance).messages.length).toBeGreaterThan(3000);
  });
});
