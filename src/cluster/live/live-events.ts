/**
 * Live runtime events between the nodes of a cluster over core NATS, only while someone watches (`GET /v1/watch`
 * on any node shows every node's events). Each node publishes the batches its orchestrator hands out on
 * `gdn.<swarm>.live.<node>` while an interest is fresh (live-interest.ts: InterestLedger), and answers the
 * `live-interest` node requests that renew it. A node with an open watch subscribes to every node's live subject,
 * then asks every live member (InterestAsker over node-fan-out.ts); its watch is ready once they answered or timed
 * out. A node that lost NATS keeps watching its own events (the daemon hands them to the route directly): what it
 * cannot publish is dropped with a debug log, and the members it cannot ask are named as unanswered.
 */
import type { Subscription } from "@nats-io/transport-node";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import type { ClusterMessenger, Served } from "../nats/messenger.ts";
import type { ClusterNames } from "../nats/names.ts";
import {
  InterestAsker,
  InterestLedger,
  LIVE_FRESH_RENEWALS,
  LIVE_RENEW_MS,
  type LiveApi,
  type LiveFeed,
  type LiveWatch,
} from "./live-interest.ts";
import { fanOut, type UnansweredNode } from "../members/node-fan-out.ts";
import { whenAttached } from "../view/when-attached.ts";
import type { NodeRuntimeEvent } from "../view/runtime-events-merge.ts";

export interface LiveEventsOptions {
  node: string;
  connection: ClusterConnection;
  names: ClusterNames;
  messenger: ClusterMessenger<LiveApi>;
  /** The live members' names (this node's included). */
  members: () => string[];
  logger: Logger;
  /** Default LIVE_RENEW_MS. */
  renewMs?: number;
  /** How long an interest request waits for each node. Default 2000 ms. */
  timeoutMs?: number;
}

type Listener = (events: readonly NodeRuntimeEvent[]) => void;

export class LiveEvents implements LiveFeed {
  readonly node: string;
  private readonly ledger: InterestLedger;
  private readonly asker: InterestAsker;
  private readonly listeners = new Set<Listener>();
  private subscription: Subscription | undefined;
  private served: Served | undefined;

  constructor(private readonly options: LiveEventsOptions) {
    this.node = options.node;
    const renewMs = options.renewMs ?? LIVE_RENEW_MS;
    this.ledger = new InterestLedger({ freshMs: renewMs * LIVE_FRESH_RENEWALS });
    this.asker = new InterestAsker({
      ask: () => this.askMembers(),
      renewMs,
      onUnanswered: (unanswered) => options.logger.debug({ unanswered }, "live interest: some nodes did not answer"),
    });
  }

  /** Answers the other nodes' interest requests; resolves once the server has the subscription. */
  async serve(): Promise<void> {
    this.served = await this.options.messenger.serveNode(this.node, "live-interest", async ({ node }) => {
      this.ledger.note(String(node));
      return { noted: true as const };
    });
  }

  publish(events: readonly RuntimeEvent[]): void {
    if (events.length === 0 || !this.ledger.wanted()) return;
    const { connection, names, logger } = this.options;
    if (connection.state !== "connected") {
      logger.debug({ events: events.length }, "live events not published: NATS is away");
      return;
    }
    try {
      connection.nc.publish(names.liveSubject(this.node), JSON.stringify({ node: this.node, events }));
    } catch (error) {
      logger.debug({ error: describe(error).message, events: events.length }, "live events not published");
    }
  }

  open(listener: Listener): LiveWatch {
    this.listeners.add(listener);
    const subscribed = this.subscribe();
    const interest = this.asker.start();
    let stopped = false;
    return {
      ready: subscribed.then(async () => ({ unanswered: await interest.ready })),
      stop: () => {
        if (stopped) return;
        stopped = true;
        interest.stop();
        this.listeners.delete(listener);
        if (this.listeners.size === 0) this.unsubscribe();
      },
    };
  }

  /** Stops answering, renewing and listening (the node stops). */
  stop(): void {
    this.served?.stop();
    this.asker.close();
    this.listeners.clear();
    this.unsubscribe();
  }

  /** Subscribes to every node's live subject once (while some watch is open); never throws. */
  private async subscribe(): Promise<void> {
    const { connection, names, logger } = this.options;
    if (this.subscription !== undefined) return;
    try {
      this.subscription = connection.nc.subscribe(names.liveSubjects, {
        callback: (error, message) => (error === null ? this.deliver(message.data) : undefined),
      });
      // While NATS is away the subscription waits for the reconnection (the client renews it); the watch does not.
      if (connection.state === "connected") await withTimeout(connection.nc.flush(), this.options.timeoutMs ?? 2000);
    } catch (error) {
      logger.debug({ error: describe(error).message }, "live events: cannot subscribe; this node's own events only");
    }
  }

  private unsubscribe(): void {
    try {
      this.subscription?.unsubscribe();
    } catch {
      // the connection is closed: nothing to undo
    }
    this.subscription = undefined;
  }

  /** Hands another node's batch to every listener, each event naming its node; a malformed message is dropped. */
  private deliver(data: Uint8Array): void {
    let batch: { node?: unknown; events?: unknown };
    try {
      batch = JSON.parse(new TextDecoder().decode(data)) as typeof batch;
    } catch {
      return;
    }
    const { node, events } = batch;
    if (typeof node !== "string" || node === this.node || !Array.isArray(events)) return;
    const named = (events as RuntimeEvent[]).map((event) => ({ ...event, node }));
    for (const listener of this.listeners) listener(named);
  }

  /** Asks every other live member for its events; the nodes that did not answer, or all when NATS is away. */
  private async askMembers(): Promise<UnansweredNode[]> {
    const { node, messenger, connection } = this.options;
    const others = this.options.members().filter((name) => name !== node);
    if (connection.state !== "connected") return others.map((name) => ({ node: name, status: "unavailable" as const }));
    const timeoutMs = this.options.timeoutMs ?? 2000;
    const { unanswered } = await fanOut({
      self: node,
      nodes: others,
      local: async () => ({ noted: true as const }),
      remote: (name) => messenger.requestNode(name, "live-interest", { node }, { timeoutMs }),
    });
    return unanswered;
  }
}

/** A feed that works once `current` gives the node's (the daemon wires the API before the node is attached). */
export function lateLive(node: string, current: () => LiveFeed | undefined): LiveFeed {
  return {
    node,
    publish: (events) => current()?.publish(events),
    open: (listener) => whenAttached(current, "a cluster watch")().open(listener),
  };
}

function withTimeout(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
