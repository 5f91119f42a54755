/**
 * Events of one instance that are not due yet (`notBefore`, from `agents__schedule`): each waits for its time on the
 * orchestrator's clock, then goes to the queue. They are already in the store, so a restart finds them unanswered
 * and defers them again; nothing is kept here that is not there.
 */
import type { Clock, TimerHandle } from "../../shared/clock.ts";
import type { InboxEntry } from "./instance-queue.ts";

/** Timers hold at most 2^31-1 ms; an event due later is deferred again when this one fires. */
const MAX_TIMER_MS = 2_147_483_647;

export class DeferredEvents {
  private readonly timers = new Map<string, TimerHandle>();

  constructor(private readonly clock: Clock) {}

  /** True when `entry` is not due yet: `due` then gets it at its time (once, however often it is offered). */
  defer(entry: InboxEntry, due: (entry: InboxEntry) => void): boolean {
    const notBefore = entry.event.notBefore;
    const now = this.clock.now();
    if (notBefore === undefined || notBefore <= now) return false;
    if (this.timers.has(entry.event.id)) return true;
    const timer = this.clock.setTimeout(
      () => {
        this.timers.delete(entry.event.id);
        due(entry);
      },
      Math.min(notBefore - now, MAX_TIMER_MS),
    );
    this.timers.set(entry.event.id, timer);
    return true;
  }

  clear(): void {
    for (const timer of this.timers.values()) this.clock.clearTimeout(timer);
    this.timers.clear();
  }
}
