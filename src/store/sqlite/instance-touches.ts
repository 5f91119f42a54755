/**
 * The mark of an instance's last change (`instances.updated_at`, touchInstance), written at most once a second per
 * instance. A commit writes whole pages to the log, so rewriting the instance's row on every write of a busy
 * conversation was a page of log (and of fsync) each time, for a time that is only shown (`goondan instances`,
 * `GET /v1/instances`). The first touch of an instance in this process always writes its row; a rolled-back batch or
 * a deleted instance forgets what was written, so the row is written again by the next touch.
 *
 * It also knows the instances whose row that first touch made and whose state nothing has written since: their
 * state is empty, so a new conversation's first turn reads nothing back (`knownEmpty`). Only a state write
 * (`touchState`) ends that; forgetting ends it too, so that a doubt is always settled by a read.
 */
import type { Database } from "bun:sqlite";
import type { InstanceRef } from "../store.ts";
import { instanceMapKey, touchInstance, touchNewInstance } from "./instance-rows.ts";

/** How stale a shown `updated_at` may be. */
export const TOUCH_EVERY_MS = 1_000;

export class InstanceTouches {
  private readonly written = new Map<string, number>();
  private readonly empty = new Set<string>();

  constructor(private readonly db: Database) {}

  /** Marks the instance changed (an event accepted); true when its row was made now: the store did not hold it. */
  touch(instance: InstanceRef, now = Date.now()): boolean {
    return this.mark(instance, now, false);
  }

  /** Marks the instance changed by a write of its state: it is not known empty any more. */
  touchState(instance: InstanceRef, now = Date.now()): void {
    this.mark(instance, now, true);
  }

  /** The instance's row was made by this process, and no state of it has been written since. */
  knownEmpty(instance: InstanceRef): boolean {
    return this.empty.has(instanceMapKey(instance));
  }

  forget(instance: InstanceRef): void {
    const key = instanceMapKey(instance);
    this.written.delete(key);
    this.empty.delete(key);
  }

  forgetAll(): void {
    this.written.clear();
    this.empty.clear();
  }

  private mark(instance: InstanceRef, now: number, state: boolean): boolean {
    const key = instanceMapKey(instance);
    if (state) this.empty.delete(key);
    const last = this.written.get(key);
    if (last === undefined) {
      const made = touchNewInstance(this.db, instance, now);
      this.written.set(key, now);
      if (made && !state) this.empty.add(key);
      return made;
    }
    if (now - last < TOUCH_EVERY_MS && now >= last) return false;
    touchInstance(this.db, instance, now);
    this.written.set(key, now);
    return false;
  }
}
