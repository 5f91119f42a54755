/**
 * The answers of events this node accepted for instances another node owns, read straight from the owner's state
 * log as the server stores it. The state stream republishes each record once stored (`gdn.<swarm>.stored.<agent>.
 * <key>`, see instance-state-log.ts); a node that accepted an event for a remote instance listens there while the
 * event waits, and the record carrying the event's answer (a turn's commit with its outcome, or a stored answer)
 * settles its waiters and routes its reply here at once, in parallel with the storage's acknowledgement to the
 * owner, instead of one hop after it (the owner's `outcome` request, which still comes and is then dropped here).
 *
 * Only what the stream stored is republished: a fenced or failed append never reaches this node, so an answer
 * taken here is as durable as one the owner sends. Whichever path brings an event's answer first wins (`first`):
 * the other is dropped (`fromOwner`), so a reply is routed once. An answer not seen here (not listening yet, a record lost on
 * the way, an answer the owner had stored before) comes by the owner's request as before.
 */
import type { Subscription } from "@nats-io/transport-node";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { describe } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ClusterConnection } from "../nats/connection.ts";
import type { ClusterNames } from "../nats/names.ts";
import { recordsOf, type RecordBatch, type StateRecord } from "../../store/nats/index.ts";

/** How long an event's wait for its answer is kept. */
const KEEP_MS = 15 * 60_000;
/**
 * How long an answer taken here is remembered, to drop the owner's request bringing it again. One that comes later
 * still (sent again after the owner failed over) routes nothing: the requester's request was taken already.
 */
const TAKEN_MS = 2 * 60_000;
/** An instance nobody here waits on is no longer listened to after this long (a requester asks it again soon). */
const LINGER_MS = 10_000;

export interface AnswerWatchOptions {
  connection: ClusterConnection;
  names: ClusterNames;
  /** The answer of an event accepted here (the first one to arrive). */
  onAnswer(event: AgentEvent, outcome: TurnOutcome): void;
  logger: Logger;
}

interface Listening {
  subscription: Subscription;
  waiting: number;
  idleSince: number;
}

export class AnswerWatch {
  /** Events accepted here for a remote instance, by id, still without an answer. */
  private readonly expected = new Map<string, { event: AgentEvent; instance: string; since: number }>();
  /** Instances listened to, by their stored-state subject. */
  private readonly listening = new Map<string, Listening>();
  /** Events whose answer was taken here, by id, with when. */
  private readonly taken = new Map<string, number>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(private readonly options: AnswerWatchOptions) {
    this.sweeper = setInterval(() => this.sweep(), LINGER_MS);
    this.sweeper.unref?.();
  }

  /**
   * Listen for the answer of `event`, about to be published for an instance another node owns. Call it before the
   * publish: the subscription goes out on the same connection first, so the server has it before any answer.
   */
  expect(event: AgentEvent): void {
    // Accepted again (a requester resumed here sends its request again): its answer is wanted again, from either
    // path; the owner answers it from its store, by its request only.
    this.taken.delete(event.id);
    if (this.expected.has(event.id)) return;
    const instance = this.options.names.storedStateSubject(event.agent, event.instanceKey);
    let listening = this.listening.get(instance);
    if (listening === undefined) {
      try {
        const subscription = this.options.connection.nc.subscribe(instance, {
          callback: (error, message) => {
            if (error === null) this.stored(message.headers?.has("Gdn-Fence") === true, message.string());
          },
        });
        listening = { subscription, waiting: 0, idleSince: 0 };
        this.listening.set(instance, listening);
      } catch (error) {
        // Closed or draining: the answer comes by the owner's request.
        this.options.logger.debug(
          { eventId: event.id, error: describe(error).message },
          "cannot listen for an answer; it comes by the owner's request",
        );
        return;
      }
    }
    listening.waiting += 1;
    this.expected.set(event.id, { event, instance, since: Date.now() });
  }

  /** The event was not accepted after all (its publish failed): stop waiting for it. */
  forget(eventId: string): void {
    const entry = this.expected.get(eventId);
    if (entry === undefined) return;
    this.expected.delete(eventId);
    this.release(entry.instance);
  }

  /** The owner's request brought the answer of `eventId`: true to act on it, false when it was taken here already. */
  fromOwner(eventId: string): boolean {
    if (this.taken.delete(eventId)) return false;
    this.forget(eventId);
    return true;
  }

  stop(): void {
    clearInterval(this.sweeper);
    for (const listening of this.listening.values()) listening.subscription.unsubscribe();
    this.listening.clear();
    this.expected.clear();
  }

  /** A record of a listened instance's state log, as the stream stored it. */
  private stored(fence: boolean, json: string): void {
    // Most records carry no answer (an accept, a step's commit): not parsed.
    if (fence || !json.includes('"outcome"')) return;
    let records: StateRecord[];
    try {
      records = recordsOf(JSON.parse(json) as StateRecord | RecordBatch<StateRecord>);
    } catch {
      return;
    }
    for (const record of records) {
      const answer = answerIn(record);
      if (answer === undefined) continue;
      const entry = this.expected.get(answer.eventId);
      if (entry === undefined) continue;
      this.forget(answer.eventId);
      this.taken.set(answer.eventId, Date.now());
      const { event } = entry;
      try {
        this.options.onAnswer(event, {
          ...answer.outcome,
          agent: event.agent,
          instanceKey: event.instanceKey,
          eventId: event.id,
        });
      } catch (error) {
        // Left to the owner's request (a reply already routed is not routed twice: its request was taken).
        this.taken.delete(answer.eventId);
        this.options.logger.error(
          { eventId: event.id, error: describe(error).message },
          "could not hand on an answer taken from the owner's state log; the owner's request brings it again",
        );
      }
    }
  }

  private release(instance: string): void {
    const listening = this.listening.get(instance);
    if (listening === undefined) return;
    listening.waiting -= 1;
    if (listening.waiting === 0) listening.idleSince = Date.now();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [eventId, entry] of this.expected) if (now - entry.since > KEEP_MS) this.forget(eventId);
    for (const [eventId, at] of this.taken) if (now - at > TAKEN_MS) this.taken.delete(eventId);
    for (const [instance, listening] of this.listening) {
      if (listening.waiting > 0 || now - listening.idleSince < LINGER_MS) continue;
      listening.subscription.unsubscribe();
      this.listening.delete(instance);
    }
  }
}

/** The answer a state record carries: a turn's commit with its final outcome, or an answer stored without a turn. */
function answerIn(record: StateRecord): { eventId: string; outcome: TurnOutcome } | undefined {
  if (record.op === "answer") return { eventId: record.eventId, outcome: record.outcome };
  // A turn stopped for approvals is not over: its answer comes with a later commit.
  if (record.op === "commit" && record.outcome !== undefined && record.outcome.status !== "awaiting_approval")
    return { eventId: record.outcome.eventId, outcome: record.outcome };
  return undefined;
}
