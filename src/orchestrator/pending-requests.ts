/**
 * Requests waiting for a reply, keyed by correlationId, each remembering the exact requesting instance.
 * A deadline timer fires `onTimeout` once; afterwards the correlationId is remembered as expired so a late
 * reply is recognised (and dropped) rather than mistaken for an unknown one.
 */
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { InstanceAddress } from "../ipc/protocol.ts";

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
}

const EXPIRED_MEMORY = 10_000;

export class PendingRequests {
  private readonly entries = new Map<string, { request: PendingRequest; timer: TimerHandle }>();
  private readonly expired = new Set<string>();

  constructor(private readonly options: { clock: Clock; onTimeout: (request: PendingRequest) => void }) {}

  add(request: PendingRequest): void {
    const delay = Math.max(0, request.deadline - this.options.clock.now());
    const timer = this.options.clock.setTimeout(() => {
      if (!this.entries.delete(request.correlationId)) return;
      this.rememberExpired(request.correlationId);
      this.options.onTimeout(request);
    }, delay);
    this.entries.set(request.correlationId, { request, timer });
  }

  /** Removes and returns the pending request, if it is still waiting. */
  take(correlationId: string): PendingRequest | undefined {
    const entry = this.entries.get(correlationId);
    if (!entry) return undefined;
    this.options.clock.clearTimeout(entry.timer);
    this.entries.delete(correlationId);
    return entry.request;
  }

  get(correlationId: string): PendingRequest | undefined {
    return this.entries.get(correlationId)?.request;
  }

  wasExpired(correlationId: string): boolean {
    return this.expired.has(correlationId);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    for (const { timer } of this.entries.values()) this.options.clock.clearTimeout(timer);
    this.entries.clear();
  }

  private rememberExpired(correlationId: string): void {
    this.expired.add(correlationId);
    if (this.expired.size > EXPIRED_MEMORY) this.expired.delete(this.expired.values().next().value as string);
  }
}
