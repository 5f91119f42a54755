/**
 * The event queue of one instance: its accepted, unanswered events in FIFO order (all durable in the store), the one
 * in flight, and what each move means for the store — a crash with an event in flight is counted durably (poison past
 * `maxConsecutiveCrashes`: the caller answers it), a deliberate stop puts it back first, a deadline or an instance
 * that cannot start takes it out (the caller answers it), a turn that stopped for approvals holds the queue until its
 * event comes back decided. An event's answer when its turn ends is the turn's own commit.
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { Approval } from "../../protocol/approval.ts";
import type { ParentToChild } from "../../protocol/ipc-messages.ts";
import { isPoison, type RestartPolicy } from "../../supervision/restart-policy.ts";

/** An accepted, unanswered event as its instance holds it. */
export interface InboxEntry {
  event: AgentEvent;
  /** Times the child crashed with this event in flight (kept in the store; drives the poison decision). */
  crashes: number;
  /** Deliveries made (the crashes before this orchestrator, then counted in memory; the next attempt is `deliveries + 1`). */
  deliveries: number;
  /**
   * How the child died with this event in flight the last time, e.g. "killed by SIGSEGV"; cleared when a deliberate
   * stop cut a later delivery short. The next delivery passes it on.
   */
  lastCrash?: string;
  /** It was delivered before this orchestrator took it over (it was found unanswered at start). */
  resumed?: boolean;
  /** Its turn stopped for these approvals and every one is decided: the delivery hands them to the turn. */
  approvals?: Approval[];
  acceptedAt: number;
  /**
   * Its insert is made and not stored yet (Instance.accept): it waits, and the queue behind it, until it is; `refused`:
   * the store refused it, and it is never delivered.
   */
  unstored?: true;
  refused?: true;
}

/** The `event` message delivering `entry` to a child: which attempt, whether an earlier one ran, how it died. */
export function deliveryOf(entry: InboxEntry): ParentToChild["event"] {
  const redelivery = entry.deliveries > 1 || entry.resumed === true;
  return {
    event: entry.event,
    attempt: entry.deliveries,
    ...(entry.lastCrash === undefined ? {} : { crashedBefore: entry.lastCrash }),
    ...(redelivery ? { redelivery } : {}),
    ...(entry.approvals === undefined ? {} : { approvals: entry.approvals }),
  };
}

export class InstanceQueue {
  /** Accepted events not yet delivered, FIFO. */
  readonly waiting: InboxEntry[] = [];
  inFlight: InboxEntry | undefined;
  /**
   * The event whose turn ended and whose commit (with its answer) is not stored yet: nothing else is delivered until
   * it is (`turnStored`), so a turn never runs on top of one the store may still refuse (it is put back then).
   */
  committing: InboxEntry | undefined;
  /**
   * A turn of this instance stopped for approvals: its conversation ends in calls without results, so nothing else
   * is delivered (the events wait, and the child may be reaped) until the decisions bring that event back first.
   */
  awaitingApproval = false;
  private readonly known = new Set<string>();

  /** `recordInterrupted`: keeps each delivery that ended without an answer in the store (see Store.recordInterrupted). */
  constructor(private readonly recordInterrupted: (eventId: string, crash?: string) => void) {}

  /** True while there is work that needs the child: waiting or in-flight events. */
  hasWork(): boolean {
    if (this.awaitingApproval) return this.inFlight !== undefined || this.committing !== undefined;
    return this.waiting.length > 0 || this.inFlight !== undefined || this.committing !== undefined;
  }

  /** The event whose turn stopped for approvals is back with every decision: first, and delivery goes on. */
  approvalsDecided(entry: InboxEntry): boolean {
    this.awaitingApproval = false;
    if (this.known.has(entry.event.id)) return false;
    this.known.add(entry.event.id);
    this.waiting.unshift(entry);
    return true;
  }

  /** The in-flight turn committed these approvals as applied: a redelivery after a crash must know it. */
  markApplied(ids: readonly string[]): void {
    for (const approval of this.inFlight?.approvals ?? []) if (ids.includes(approval.id)) approval.applied = true;
  }

  /** Queues an event; false when it is already queued or in flight. */
  push(entry: InboxEntry): boolean {
    if (this.known.has(entry.event.id)) return false;
    this.known.add(entry.event.id);
    this.waiting.push(entry);
    return true;
  }

  has(eventId: string): boolean {
    return this.known.has(eventId);
  }

  /**
   * Takes this very entry out of the queue, its insert refused; true when it is in flight (handed over before its
   * commit, `deliverNext(true)`): it stays there, so nothing else is delivered, until its child's turn ends or the
   * child exits (`dropRefused`).
   */
  withdrawRefused(entry: InboxEntry): boolean {
    if (this.inFlight === entry) return true;
    const index = this.waiting.indexOf(entry);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    this.known.delete(entry.event.id);
    return false;
  }

  /** An entry whose insert the store refused leaves for good, in flight or committing: it never runs again. */
  dropRefused(entry: InboxEntry): void {
    if (this.inFlight === entry) this.inFlight = undefined;
    if (this.committing === entry) this.committing = undefined;
    this.known.delete(entry.event.id);
  }

  /** Takes an accepted event that has not been delivered yet out of the queue (its deadline passed). */
  withdraw(eventId: string): InboxEntry | undefined {
    const index = this.waiting.findIndex((entry) => entry.event.id === eventId);
    if (index < 0) return undefined;
    const [entry] = this.waiting.splice(index, 1);
    if (entry) this.known.delete(eventId);
    return entry;
  }

  /** The first waiting event, when its insert is not stored yet. */
  get unstoredNext(): InboxEntry | undefined {
    const next = this.waiting[0];
    return next?.unstored ? next : undefined;
  }

  /** The next event, now in flight; `unstored`: one whose insert is not committed yet may go too. */
  deliverNext(unstored = false): InboxEntry | undefined {
    if (this.inFlight || this.committing || this.awaitingApproval || (!unstored && this.unstoredNext)) return undefined;
    const entry = this.waiting.shift();
    if (!entry) return undefined;
    entry.deliveries += 1;
    this.inFlight = entry;
    return entry;
  }

  /**
   * The turn of `eventId` ended (its commit with its answer is made; `awaitingApproval`: it stopped for approvals):
   * the in-flight entry, now `committing` until `turnStored` (or, refused, put back).
   */
  finish(eventId: string, awaitingApproval = false): InboxEntry | undefined {
    const entry = this.inFlight;
    if (!entry || entry.event.id !== eventId) return undefined;
    this.inFlight = undefined;
    this.committing = entry;
    this.awaitingApproval = awaitingApproval;
    return entry;
  }

  /** The commit of the finished turn of `entry` is stored: it is answered and gone. */
  turnStored(entry: InboxEntry): void {
    if (this.committing === entry) this.committing = undefined;
    this.known.delete(entry.event.id);
  }

  /** Handed to a child that ended before it was ready: its turn never began, so it is first again, undelivered. */
  undeliver(entry: InboxEntry): void {
    entry.deliveries -= 1;
    this.waiting.unshift(entry);
  }

  /** The child is gone: the event it had in flight, if any, no longer in flight. */
  takeInFlight(): InboxEntry | undefined {
    const entry = this.inFlight;
    this.inFlight = undefined;
    return entry;
  }

  /**
   * A turn cut short by a deliberate stop was never answered: first again. Its next delivery follows a clean stop,
   * not a crash, so it carries no `lastCrash`.
   */
  putBack(entry: InboxEntry): void {
    // Unanswered again (its stopped turn's commit failed, too): nothing waits for a decision.
    this.awaitingApproval = false;
    if (this.committing === entry) this.committing = undefined;
    if (entry.lastCrash !== undefined) this.recordInterrupted(entry.event.id);
    delete entry.lastCrash;
    this.waiting.unshift(entry);
  }

  /**
   * The child crashed with `entry` in flight (`why`: how it died): true when it is now poison (out of the queue: the
   * caller answers it), else it is first again.
   */
  crashedWith(entry: InboxEntry, policy: RestartPolicy, why: string): boolean {
    entry.crashes += 1;
    entry.lastCrash = why;
    this.recordInterrupted(entry.event.id, why);
    if (isPoison({ crashes: entry.crashes, policy })) {
      this.known.delete(entry.event.id);
      return true;
    }
    this.waiting.unshift(entry);
    return false;
  }

  /** An event taken in flight is answered without a turn (a resource limit ended its child): it leaves the queue. */
  forget(entry: InboxEntry): void {
    this.known.delete(entry.event.id);
  }

  /** Takes every waiting event out of the queue and returns them (an instance that cannot start: the caller answers them). */
  giveUpWaiting(): InboxEntry[] {
    const entries = this.waiting.splice(0);
    for (const entry of entries) this.known.delete(entry.event.id);
    return entries;
  }
}
