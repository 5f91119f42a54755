/**
 * The one interface for a swarm's durable state: every accepted event (the inbox) with its outcome once answered,
 * each instance's conversation, the results waiting to be shown to its model, its extensions' state, and the
 * runtime events. The orchestrator is its only writer (agent children hand their commits to it over IPC), so a
 * backend can make many writers' work durable together: writes made in the same tick share one sync (group
 * commit), and a promise returned by a write resolves only once it is durable. Reads see every write made so far.
 * Backends: embedded SQLite (sqlite/), and NATS JetStream for a cluster; the agent loop and the router name neither.
 * Reads are asynchronous because a networked backend answers them over the wire; the embedded one answers at once.
 */
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { Approval, ApprovalDecision } from "../protocol/approval.ts";
import type { Message, OlderMessagesQuery, PendingResult } from "../protocol/conversation.ts";
import type { InstanceCommit, InstanceState } from "../protocol/instance-state.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";

/** One instance of one swarm: `swarm` is the Swarm's instanceKey. */
export interface InstanceRef {
  swarm: string;
  agent: string;
  instanceKey: string;
}

/** An accepted event as the inbox holds it. */
export interface InboxRecord {
  event: AgentEvent;
  /** Epoch ms. */
  acceptedAt: number;
  /** Deliveries whose turn ended in a crash of the child, and how the last one died. */
  crashes: number;
  lastCrash?: string;
  /** Present once the event is answered (its turn committed, or it was given up or timed out). */
  outcome?: TurnOutcome;
  /** The approvals its turn stopped for, when it did (their decisions go with its next delivery). */
  approvals?: Approval[];
}

export interface ApprovalQuery {
  /** Default: every swarm of the state root. */
  swarm?: string;
  /** Only those still waiting for a decision. */
  pending?: boolean;
  id?: string;
}

/**
 * What deciding an approval did: `decided` (and, once it was the event's last undecided one, the event is
 * unanswered again and `reopened` holds it, to be delivered with every decision), `already` (decided before:
 * nothing changed), or `missing` (no such approval).
 */
export type ApprovalDecided =
  | { type: "decided"; approval: Approval; reopened?: InboxRecord }
  | { type: "already"; approval: Approval }
  | { type: "missing" };

export interface StoredInstance extends InstanceRef {
  messages: number;
  pendingResults: number;
  /** Epoch ms of its last change. */
  updatedAt: number;
}

export interface RuntimeEventQuery {
  /** Default: every swarm of the state root (operator commands). */
  swarm?: string;
  agent?: string;
  instanceKey?: string;
  turnId?: string;
  traceId?: string;
  /** Only events after this cursor (a previous answer's `cursor`). */
  after?: number;
  /** The newest `limit` of the matching events (all when absent), oldest first. */
  limit?: number;
}

export interface RuntimeEventPruning {
  /** Epoch ms: events stamped before it go. */
  before?: number;
  /** The newest this many stay. */
  keepRows?: number;
  /** Most rows deleted by one call (one short transaction). */
  limit: number;
}

export interface StoredRuntimeEvent {
  /** Increasing: a cursor for `after`. */
  cursor: number;
  event: RuntimeEvent;
}

/**
 * `sync: false` (default true): nothing outside the swarm is told of this write and no side effect waits on it, so
 * an ordered store need not force it to disk: the next synced write, or the database's own checkpoint, makes it
 * durable with everything before it. A crash of the machine (not of a process) before then loses it, and what
 * depended on it is redone: an agent's request is sent again by its requester, a turn's answer to an agent is
 * recomputed. Every write a person, a connector or a tool's side effect waits on is synced.
 */
export interface WriteOptions {
  sync?: boolean;
  /**
   * Called once the write is stored: committed (an ordered store, before its sync: whatever is written after it
   * becomes durable only with it) or durable (any other). Never called for a write the store refused. What depends
   * on the write having happened (an event handed to a child, an answer routed on) waits for this, not for the call:
   * a write can be applied in the call and still be refused at its commit (a full disk).
   */
  committed?: () => void;
}

/** What one budget counter holds: tokens (input + output) and US dollars counted in one window. */
export interface BudgetUsage {
  tokens: number;
  costUsd: number;
}

/**
 * Which counter: the `scope` of a budget (`swarm`, `agent` or `instance`) and its `subject` ("" for the swarm, the
 * agent's name, or `agent/instanceKey`) in one swarm instance, for one period (`periodMs`) and its window
 * (`windowStart`, epoch ms).
 */
export interface BudgetCounterKey {
  swarm: string;
  scope: "swarm" | "agent" | "instance";
  subject: string;
  periodMs: number;
  windowStart: number;
}

export interface BudgetCounter extends BudgetCounterKey, BudgetUsage {}

/** Durable budget counters (docs/limits.md#budgets); the orchestrator is their only writer. */
export interface BudgetCounters {
  /** The counter's usage so far (zero when nothing was counted). */
  usage(key: BudgetCounterKey): Promise<BudgetUsage>;
  /** Adds to the counter; resolves once written (an ordered store syncs it with the next synced write: the turn's commit). */
  add(key: BudgetCounterKey, usage: BudgetUsage): Promise<void>;
  /** The counters of the swarm (every swarm when absent) whose window ends after `activeAt` (epoch ms). */
  list(options: { swarm?: string; activeAt: number }): Promise<BudgetCounter[]>;
}

export interface Store {
  /** Where it keeps its data, for messages (a file, a URL). */
  readonly location: string;
  /**
   * Budget counters, when this backend keeps them (the embedded one does). A bundle with a budget is refused on a
   * store without them (`E_CONFIG_BUDGET_UNSUPPORTED`), never run without its budget.
   */
  readonly budgets?: BudgetCounters;
  /**
   * True when every write is applied before its call returns and writes become durable in the order they were
   * committed, as in one log (the embedded database). Whatever an instance does with a turn's answer is then
   * committed after that answer, so the orchestrator hands an answer to the requesting instance, and an agent
   * request to its callee, once they are committed (WriteOptions.committed) without waiting for their sync; outside
   * callers (an HTTP client) are still told only once it is durable. A write applied in its call may still be refused
   * at its commit (a full disk): nothing depending on it goes on before `committed`. A store without this (a
   * networked one) is waited on every time.
   */
  readonly ordered: boolean;

  /** fsyncs of the store's log so far (an embedded store; a networked one leaves it out): `/metrics` shows it. */
  readonly syncs?: number;

  /**
   * Accepts an event into its instance's inbox; resolves once durable. Accepting an event id twice keeps the first.
   * A write that cannot be stored is refused (every write below): the promise rejects with E_STORE_UNAVAILABLE (a
   * full disk, an I/O error, the cluster's log unreachable: it passes) or E_STORE_CORRUPT (store-fault.ts).
   */
  accept(swarm: string, event: AgentEvent, acceptedAt: number, options?: WriteOptions): Promise<void>;
  /** The inbox record of an event, answered or not. */
  inboxRecord(swarm: string, eventId: string): Promise<InboxRecord | undefined>;
  /**
   * The greatest id among the swarm's accepted events whose id starts with `prefix` and is `length` characters
   * long, answered or not: with ids that sort by time (a schedule's ticks) the newest one, recorded by the same
   * accept, in the same transaction, as its event.
   */
  newestEventId(swarm: string, options: { prefix: string; length: number }): Promise<string | undefined>;
  /**
   * The newest `limit` accepted events of the swarm whose id starts with `idPrefix`, answered or not, newest first
   * (the A2A surface's tasks, whose events it names `a2a_<task id>`, read back after a restart); no approvals.
   */
  eventsByIdPrefix(swarm: string, query: { idPrefix: string; limit: number }): Promise<InboxRecord[]>;
  /** Every accepted, unanswered event of the swarm, in acceptance order. */
  unanswered(swarm: string): Promise<InboxRecord[]>;
  /**
   * A delivery of the event ended without an answer. A crash (`crash`: how the child died) is counted durably (the
   * poison decision) and its cause kept for the next delivery; a deliberate stop (`crash` absent) clears the cause,
   * so the next delivery does not blame the event for a death it did not cause.
   */
  recordInterrupted(swarm: string, eventId: string, crash?: string): void;
  /** Answers an event without a turn (given up, timed out, refused); resolves once durable. */
  answer(swarm: string, eventId: string, outcome: TurnOutcome): Promise<void>;

  /**
   * An instance's commit, applied in one transaction: its conversation changes, the pending results it showed
   * (removed) or produced (added), its extension state, and — at the end of a turn — the outcome that answers the
   * event. Resolves once durable.
   */
  commit(instance: InstanceRef, commit: InstanceCommit, outcome?: TurnOutcome, options?: WriteOptions): Promise<void>;
  /** A result for an instance that has not been shown to its model (a reply to an async request). Resolves once durable. */
  addPendingResult(instance: InstanceRef, result: PendingResult, options?: WriteOptions): Promise<void>;
  /**
   * What a starting child is handed: the conversation its model sees (never the messages archived out of it),
   * the results waiting, the extensions' state. Read at once (every store reads a database of its own host), so a
   * new instance's state goes out right behind its `open`; a fault of the disk throws, coded.
   */
  instanceState(instance: InstanceRef): InstanceState;
  /**
   * A page of the instance's history, archived messages and current ones in the order they were appended: the
   * `limit` (default 50, at most 500) just before message `before` (default: the newest), oldest first.
   */
  olderMessages(instance: InstanceRef, query: OlderMessagesQuery): Promise<Message[]>;
  /**
   * Removes an instance's conversation and its archived history (a `--fresh` restart); true when it had a
   * conversation. Extension state and events stay.
   */
  clearConversation(instance: InstanceRef): Promise<boolean>;
  /** Removes everything of an instance (`goondan instance delete`). */
  deleteInstance(instance: InstanceRef): Promise<boolean>;
  /** The instances the swarm (every swarm when absent) has state for. */
  instances(swarm?: string): Promise<StoredInstance[]>;

  /** Approvals of tool calls (pending ones by `pending: true`), oldest first. */
  approvals(query: ApprovalQuery): Promise<Approval[]>;
  /**
   * Decides a pending approval, once: in one transaction the decision is kept and, when no approval of its event is
   * left undecided, the event's stored `awaiting_approval` answer is cleared so that it is delivered again (also after
   * a restart: it is unanswered). Resolves once durable.
   */
  decideApproval(swarm: string, id: string, decision: ApprovalDecision): Promise<ApprovalDecided>;

  /**
   * Keeps runtime events (not awaited: losing the last few on a crash costs no correctness), giving each its cursor
   * now: the rows returned are what `runtimeEvents` reads once they are written. A cursor is never given twice, even
   * across a crash that lost its event (readers allow the gap).
   */
  appendRuntimeEvents(swarm: string, events: readonly RuntimeEvent[]): StoredRuntimeEvent[];
  runtimeEvents(query: RuntimeEventQuery): Promise<StoredRuntimeEvent[]>;
  /**
   * Deletes at most `limit` of the swarm's oldest runtime events: those stamped before `before` (epoch ms) and
   * those past its newest `keepRows`. Resolves with how many went; call again while it is `limit` (retention).
   */
  pruneRuntimeEvents(swarm: string, options: RuntimeEventPruning): Promise<number>;

  /**
   * Commits what is written so far now rather than at the end of the tick, so that the `committed` callbacks of
   * those writes run (or the writes are refused) before it returns: for a child waiting for the one write it needs (an
   * event's insert, the commit of the turn before). A store that commits nothing by itself (a networked one) passes
   * it on to what it writes through.
   */
  commitNow(): void;
  /**
   * Writes the runtime events given cursors so far into the tick's transaction, resolving once it is committed
   * (not synced; at the end of the tick, with whatever else it holds) and rejecting when they could not be kept: for
   * a reader that shows them outside (a streamed turn), so that a crash of the process loses none a client saw.
   */
  commitRuntimeEvents(): Promise<void>;

  /** Makes every write so far durable and releases the store. */
  close(): Promise<void>;
}
