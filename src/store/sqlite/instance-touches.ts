/**
 * The mark of an instance's last change (`instances.updated_at`, touchInstance), written at most once a second per
 * instance. A commit writes whole pages to the log, so rewriting the instance's row on every write of a busy
 * conversation was a page of log (and of fsync) each time, for a time that is only shown (`goondan instances`,
 * `GET /v1/instances`). The first touch of an instance in this process always writes its row; a rolled-back batch or
 * a deleted instance forgets what was written, so the row is written again by the next touch.
 */
import type { Database } from "bun:sqlite";
import type { InstanceRef } from "../store.ts";
import { instanceMapKey, touchInstance } from "./instance-rows.ts";

/** How stale a shown `updated_at` may be. */
export const TOUCH_EVERY_MS = 1_000;

export class InstanceTouches {
  private readonly written = new Map<string, number>();

  constructor(private readonly db: Database) {}

  touch(instance: InstanceRef, now = Date.now()): void {
    const key = instanceMapKey(instance);
    const last = this.written.get(key);
    if (last !== undefined && now - last < TOUCH_EVERY_MS && now >= last) return;
    touchInstance(this.db, instance, now);
    this.written.set(key, now);
  }

  forget(instance: InstanceRef): void {
    this.written.delete(instanceMapKey(instance));
  }

  forgetAll(): void {
    this.written.clear();
  }
}
