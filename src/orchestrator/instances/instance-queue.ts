/**
 * The event queue of one instance, over its durable inbox: accepted events waiting in FIFO order, the one
 * in flight, and the inbox bookkeeping of each move — acknowledged when its turn commits, put back at the
 * front when a deliberate stop cut its turn short, counted when the child crashed with it (poison past
 * `maxConsecutiveCrashes`: removed), withdrawn when its deadline passed before delivery, or given up.
 */
import type { DurableInbox, InboxEntry } from "./durable-inbox.ts";
import { isPoison, type RestartPolicy } from "../../supervision/restart-policy.ts";

export class InstanceQueue {
  /** Accepted events not yet delivered, FIFO. */
  readonly waiting: InboxEntry[] = [];
  inFlight: InboxEntry | undefined;

  constructor(readonly inbox: DurableInbox) {}

  /** True while there is work that needs the child: waiting or in-flight events. */
  hasWork(): boolean {
    return this.waiting.length > 0 || this.inFlight !== undefined;
  }

  push(entry: InboxEntry): void {
    this.waiting.push(entry);
  }

  /** Removes an accepted event that has not been delivered yet, from the inbox too. */
  withdraw(eventId: string): InboxEntry | undefined {
    const index = this.waiting.findIndex((entry) => entry.event.id === eventId);
    if (index < 0) return undefined;
    const [entry] = this.waiting.splice(index, 1);
    if (entry) this.inbox.remove(entry);
    return entry;
  }

  /** Takes the next waiting event and marks it in flight, counting the delivery. */
  deliverNext(): InboxEntry | undefined {
    if (this.inFlight) return undefined;
    const entry = this.waiting.shift();
    if (!entry) return undefined;
    entry.deliveries += 1;
    this.inFlight = entry;
    return entry;
  }

  /** The turn of `eventId` ended: the in-flight entry, now out of flight (call `acknowledge` after routing its reply). */
  finish(eventId: string): InboxEntry | undefined {
    const entry = this.inFlight;
    if (!entry || entry.event.id !== eventId) return undefined;
    this.inFlight = undefined;
    return entry;
  }

  acknowledge(entry: InboxEntry): void {
    this.inbox.remove(entry);
  }

  /** The child is gone: the event it had in flight, if any, no longer in flight. */
  takeInFlight(): InboxEntry | undefined {
    const entry = this.inFlight;
    this.inFlight = undefined;
    return entry;
  }

  /**
   * A turn cut short by a deliberate stop was never acknowledged: first again, still in the inbox. Its next
   * delivery follows a clean stop, not a crash, so it carries no `lastCrash`.
   */
  putBack(entry: InboxEntry): void {
    if (entry.lastCrash !== undefined) {
      delete entry.lastCrash;
      this.inbox.update(entry);
    }
    this.waiting.unshift(entry);
  }

  /**
   * The child crashed with `entry` in flight (`why`: how it died): true when it is now poison (removed), else it
   * is first again.
   */
  crashedWith(entry: InboxEntry, policy: RestartPolicy, why: string): boolean {
    entry.crashes += 1;
    entry.lastCrash = why;
    if (isPoison({ crashes: entry.crashes, policy })) {
      this.inbox.remove(entry);
      return true;
    }
    this.inbox.update(entry);
    this.waiting.unshift(entry);
    return false;
  }

  /** Removes every waiting event, from the inbox too, and returns them (an instance that cannot start). */
  giveUpWaiting(): InboxEntry[] {
    const entries = this.waiting.splice(0);
    for (const entry of entries) this.inbox.remove(entry);
    return entries;
  }
}
