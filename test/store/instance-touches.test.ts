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

  it("knows a new instance empty until its state is written, and an instance it did not make never", () => {
    const { db, touches } = setup();
    expect(touches.touch(instance("new"), 1_000)).toBe(true);
    expect(touches.knownEmpty(instance("new"))).toBe(true);
    // Touched again (another event accepted): still empty; a state write ends it.
    expect(touches.touch(instance("new"), 3_000)).toBe(false);
    expect(touches.knownEmpty(instance("new"))).toBe(true);
    touches.touchState(instance("new"), 3_001);
    expect(touches.knownEmpty(instance("new"))).toBe(false);
    // A row made by a state write (a reply for an instance never accepted) is not empty.
    touches.touchState(instance("reply"), 4_000);
    expect(touches.knownEmpty(instance("reply"))).toBe(false);
    // Another process (a restart) finds the rows there: nothing is known empty.
    const restarted = new InstanceTouches(db);
    expect(restarted.touch(instance("new"), 5_000)).toBe(false);
    expect(restarted.touch(instance("reply"), 5_000)).toBe(false);
    expect(restarted.knownEmpty(instance("new"))).toBe(false);
    // Forgetting (a rollback, a delete, an import) settles any doubt by a read.
    expect(touches.touch(instance("later"), 6_000)).toBe(true);
    touches.forgetAll();
    expect(touches.knownEmpty(instance("later"))).toBe(false);
    expect(touches.touch(instance("gone"), 6_000)).toBe(true);
    touches.forget(instance("gone"));
    expect(touches.knownEmpty(instance("gone"))).toBe(false);
  });
});
