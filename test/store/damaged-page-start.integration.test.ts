/**
 * A damaged `runtime_events` page is found at start, with a real `goondan run`: the state database of an earlier run
 * has one leaf page of that table overwritten with junk (opening the database does not notice: it reads each table's
 * first page only), and `goondan run` refuses to start with E_STORE_CORRUPT naming the file and `goondan backup`,
 * instead of reporting ready and answering 500 on the first read that lands there.
 */
import { describe, expect, it } from "bun:test";
import type { Database } from "bun:sqlite";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, runToExit } from "../helpers/goondan-process.ts";

const defer = useCleanups();
const REPO = new URL("../..", import.meta.url).pathname;

const events = (count: number): RuntimeEvent[] =>
  Array.from(
    { length: count },
    (_, i) =>
      ({
        type: "turn.started",
        agent: "coordinator",
        instanceKey: "example",
        turnId: `turn_${i}`,
        traceId: `trace_${i}`,
        timestamp: new Date(0).toISOString(),
        padding: "p".repeat(400),
      }) as unknown as RuntimeEvent,
  );

describe("a damaged state database at start", () => {
  it("refuses to start with E_STORE_CORRUPT naming the file and the remedy", async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-damaged-"));
    defer(() => rmSync(stateRoot, { recursive: true, force: true }));
    const file = join(stateRoot, "goondan.db");
    const store = new SqliteStore(file);
    store.appendRuntimeEvents("example", events(400));
    store.flush();
    const db = (store as unknown as { db: Database }).db;
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

    const run = await runToExit({
      argv: [process.execPath, GOONDAN_BIN, "run", REPO, "--port", "0", "--state-root", stateRoot],
      cwd: REPO,
      env: { PATH: process.env.PATH, HOME: stateRoot, GOONDAN_API_AUTH: "off", GOONDAN_LOG_LEVEL: "info" },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.code).not.toBe(0);
    expect(output).toContain("E_STORE_CORRUPT");
    expect(output).toContain(file);
    expect(output).toContain("goondan backup");
    expect(output).not.toContain('"msg":"ready"');
  }, 60_000);
});
