/**
 * Who wants a node's live runtime events, kept without NATS so it is testable with a clock: a node publishes its
 * events (live-events.ts) only while some node watches. A node with at least one open watch asks every live member
 * at once with a `live-interest` node request, and again every `renewMs` while a watch stays open (InterestAsker);
 * a node that is asked notes the asker and publishes while the freshest interest is younger than about three
 * renewals (InterestLedger), so a watcher that went away silently (its node died) stops the publishing soon after.
 * Also here: what the HTTP API's watch route talks to (ClusterLive), so src/http never imports NATS.
 */
import type { UnansweredNode } from "../members/node-fan-out.ts";
import type { NodeRuntimeEvent } from "../view/runtime-events-merge.ts";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";

/** How often a watching node renews its interest. */
export const LIVE_RENEW_MS = 2000;
/** How many renewals an interest outlives: one or two lost ones do not stop the events. */
export const LIVE_FRESH_RENEWALS = 3;

/** The node request a watching node sends every member. */
export type LiveApi = {
  "live-interest": { request: { node: string }; response: { noted: true } };
};

/** One open watch of the cluster's live events. */
export interface LiveWatch {
  /** Resolves once every live member was asked for its events and answered or timed out; names those that did not. */
  readonly ready: Promise<{ unanswered: UnansweredNode[] }>;
  stop(): void;
}

/** The cluster's live runtime events as the HTTP API watches them (cluster mode). */
export interface ClusterLive {
  /** This node's name (its own events, from the orchestrator, are given this `node`). */
  readonly node: string;
  /** Hands `listener` the other nodes' event batches, each event naming its node, until `stop`. */
  open(listener: (events: readonly NodeRuntimeEvent[]) => void): LiveWatch;
}

/** What the node publishes its own events through. */
export interface LiveFeed extends ClusterLive {
  /** Publishes this node's batch while some node wants it; never throws. */
  publish(events: readonly RuntimeEvent[]): void;
}

/** The interests other nodes sent this one: it publishes while one is fresh. */
export class InterestLedger {
  private readonly noted = new Map<string, number>();

  constructor(private readonly options: { freshMs: number; now?: () => number }) {}

  /** `node` (re)asked for this node's events. */
  note(node: string): void {
    this.noted.set(node, this.now());
  }

  /** Whether some node asked within the freshness window (stale interests are dropped). */
  wanted(): boolean {
    const now = this.now();
    for (const [node, at] of this.noted) if (now - at >= this.options.freshMs) this.noted.delete(node);
    return this.noted.size > 0;
  }

  /** The nodes whose interest is fresh, in name order. */
  watchers(): string[] {
    return this.wanted() ? [...this.noted.keys()].sort() : [];
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

export interface InterestAskerOptions {
  /** Asks every other live member once; resolves with those that did not answer. */
  ask: () => Promise<UnansweredNode[]>;
  renewMs: number;
  /** Told of a renewal some node did not answer (debug). */
  onUnanswered?: (unanswered: UnansweredNode[]) => void;
}

/** This node's open watches: while there is one, every member is asked, at once and every `renewMs`. */
export class InterestAsker {
  private open = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: InterestAskerOptions) {}

  get watching(): number {
    return this.open;
  }

  /** One more watch: asks now (a member that joined since is asked too); `ready` resolves with who did not answer. */
  start(): { ready: Promise<UnansweredNode[]>; stop(): void } {
    this.open += 1;
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.renew(), this.options.renewMs);
      this.timer.unref?.();
    }
    let stopped = false;
    return {
      ready: this.options.ask().catch(() => []),
      stop: () => {
        if (stopped) return;
        stopped = true;
        this.open -= 1;
        if (this.open === 0) this.close();
      },
    };
  }

  /** Stops renewing whatever is open (the node stops). */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renew(): Promise<void> {
    const unanswered = await this.options.ask().catch(() => []);
    if (unanswered.length > 0) this.options.onUnanswered?.(unanswered);
  }
}
