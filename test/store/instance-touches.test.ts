import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/store/sqlite/open-database.ts";
import { InstanceTouches, TOUCH_EVERY_MS } from "../../src/store/sqlite/instance-touches.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

function setup() {
  const root = mkdtempSync(join(tmpdir(), "goondan-touches-"));
  defer(() => rmSync(root, { recursive: true, force: true }));
  const db = openDatabase(join(root, "goondan.db"));
  defer(() => db.close());
  const updatedAt = (instanceKey: string) =>
    (
      db.query("SELECT updated_at FROM instances WHERE instance_key = ?").get(instanceKey) as {
        updated_at: number;
      } | null
    )?.updated_at;
  return { db, touches: new InstanceTouches(db), updatedAt };
}

const instance = (instanceKey: string) => ({ swarm: "s", agent: "a", instanceKey });

describe("an instance's last-change mark", () => {
  it("is written at the first touch, then at most once a second", () => {
    const { touches, updatedAt } = setup();
    touches.touch(instance("k"), 10_000);
    expect(updatedAt("k")).toBe(10_000);
    touches.touch(instance("k"), 10_000 + TOUCH_EVERY_MS - 1);
    expect(updatedAt("k")).toBe(10_000);
    touches.touch(instance("k"), 10_000 + TOUCH_EVERY_MS);
    expect(updatedAt("k")).toBe(10_000 + TOUCH_EVERY_MS);
    // Each instance on its own; a clock that went back writes at once.
    touches.touch(instance("other"), 10_500);
    expect(updatedAt("other")).toBe(10_500);
    touches.touch(instance("k"), 5_000);
    expect(updatedAt("k")).toBe(5_000);
  });

  it("writes the row again after a rollback or a delete forgot it", () => {
    const { db, touches, updatedAt } = setup();
    db.exec("BEGIN");
    touches.touch(instance("k"), 1_000);
    db.exec("ROLLBACK");
    touches.forgetAll();
    touches.touch(instance("k"), 1_001);
    expect(updatedAt("k")).toBe(1_001);
    db.exec("DELETE FROM instances");
    touches.forget(instance("k"));
    touches.touch(instance("k"), 1_002);
    expect(updatedAt("k")).toBe(1_002);
  });
});
