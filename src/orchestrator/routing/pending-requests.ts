/**
 * Requests waiting for a reply, keyed by the requesting instance and the correlationId it chose, so the
 * reply goes to exactly that instance.
 * A deadline timer fires `onTimeout` once; afterwards the correlationId is remembered as expired so a late
 * reply is recognised (and dropped) rather than mistaken for an unknown one.
 */
import type { Clock, TimerHandle } from "../../shared/clock.ts";
import type { InstanceAddress } from "../../protocol/agent-event.ts";

export interface PendingRequest {
  correlationId: string;
  /** The requesting instance: the reply goes to exactly this address. */
  requester: InstanceAddress;
  /** Agent and instance that will answer. */
  agent: string;
  instanceKey: string;
  eventId: string;
  /** Epoch ms. */
  deadline: number;
  /** The requester's turn waits for this reply (`agents__request` without `async`). Default false. */
  blocking?: boolean;
}

const EXPIRED_MEMORY = 10_000;

const keyOf = (request: { requester: InstanceAddress; correlationId: string }): string =>
  `${request.requester}\n${request.correlationId}`;

export class PendingRequests {
  private readonly entries = new Map<string, { request: PendingRequest; timer: TimerHandle }>();
  private readonly expired = new Set<string>();

  constructor(private readonly options: { clock: Clock; onTimeout: (request: PendingRequest) => void }) {}

  add(request: PendingRequest): void {
    const key = keyOf(request);
    const previous = this.entries.get(key);
    if (previous) this.options.clock.clearTimeout(previous.timer);
    const delay = Math.max(0, request.deadline - this.options.clock.now());
    const timer = this.options.clock.setTimeout(() => {
      if (this.entries.get(key)?.request !== request) return;
      this.entries.delete(key);
      this.rememberExpired(key);
      this.options.onTimeout(request);
    }, delay);
    this.entries.set(key, { request, timer });
  }

  /** Removes and returns the pending request, if it is still waiting. */
  take(reply: { requester: InstanceAddress; correlationId: string }): PendingRequest | undefined {
    const key = keyOf(reply);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.options.clock.clearTimeout(entry.timer);
    this.entries.delete(key);
    return entry.request;
  }

  /** The pending request, if it is still waiting, left in place. */
  peek(reply: { requester: InstanceAddress; correlationId: string }): PendingRequest | undefined {
    return this.entries.get(keyOf(reply))?.request;
  }

  wasExpired(reply: { requester: InstanceAddress; correlationId: string }): boolean {
    return this.expired.has(keyOf(reply));
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    for (const { timer } of this.entries.values()) this.options.clock.clearTimeout(timer);
    this.entries.clear();
  }

  private rememberExpired(key: string): void {
    this.expired.add(key);
    if (this.expired.size > EXPIRED_MEMORY) this.expired.delete(this.expired.values().next().value as string);
  }
}
