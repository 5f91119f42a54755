/**
 * The embedded store: one SQLite database per state root (`goondan.db`, bun:sqlite, WAL), written only by the
 * orchestrator. Writes go through the WriteBatch, so everything written in one tick is one transaction and at most
 * one sync, made off the event loop (write-batch.ts, wal-sync.ts); a turn's commit (its messages, the pending
 * results it showed or produced, its extension state and the outcome that answers its event) is applied in that one
 * transaction. Reads answer at once and see every write made so far. The conversation is kept as rows in order, so
 * a turn costs the rows it adds, never a rewrite.
 */
import type { Database } from "bun:sqlite";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { Approval, ApprovalDecision } from "../../protocol/approval.ts";
import {
  pendingResultId,
  type Message,
  type OlderMessagesQuery,
  type PendingResult,
} from "../../protocol/conversation.ts";
import type { InstanceCommit, InstanceState } from "../../protocol/instance-state.ts";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { InstanceSnapshot, InstanceSnapshots } from "../instance-snapshot.ts";
import type {
  ApprovalDecided,
  ApprovalQuery,
  InboxRecord,
  InstanceRef,
  RuntimeEventPruning,
  RuntimeEventQuery,
  Store,
  StoredInstance,
  StoredRuntimeEvent,
  WriteOptions,
} from "../store.ts";
import { readClusterNodeMark, writeClusterNodeMark, type ClusterNodeMark } from "./cluster-node-mark.ts";
import { insertApproval, markApplied, selectApprovals, withApprovals } from "./approval-rows.ts";
import { decideApprovalRows } from "./approval-decision.ts";
import { SqliteBudgetCounters } from "./budget-rows.ts";
import { Checkpointer } from "./checkpointer.ts";
import {
  insertInboxEvent,
  newestInboxEventId,
  selectInboxByPrefix,
  recordInboxCrash,
  selectInboxRecord,
  selectUnanswered,
  setInboxOutcome,
} from "./inbox-rows.ts";
import { deleteInstanceRows, instanceKnown, listInstances, readInstanceState } from "./instance-rows.ts";
import {
  deletePendingResult,
  insertPendingResult,
  newestPendingSeq,
  setExtensionState,
} from "./pending-result-rows.ts";
import { exportInstanceRows, importInstanceRows } from "./instance-snapshot-rows.ts";
import { MessageRows } from "./message-rows.ts";
import { openDatabase } from "./open-database.ts";
import { selectRuntimeEvents } from "./runtime-event-rows.ts";
import { RuntimeEventWriter } from "./runtime-event-writer.ts";
import { InstanceTouches } from "./instance-touches.ts";
import { WriteBatch } from "./write-batch.ts";
import { storeFault } from "../store-fault.ts";

export class SqliteStore implements Store, InstanceSnapshots {
  readonly location: string;
  /** One connection, one log: writes are applied at once and become durable in order (Store.ordered). */
  readonly ordered = true;
  private readonly db: Database;
  private readonly batch: WriteBatch;
  private readonly runtimeEventWriter: RuntimeEventWriter;
  /** Present on the orchestrator's store: checkpoints the log off the event loop. */
  readonly checkpointer: Checkpointer | undefined;
  private readonly messages: MessageRows;
  private readonly touches: InstanceTouches;
  readonly budgets: SqliteBudgetCounters;
  private pendingSeq = 0;

  /** `existing`: open only a database that is there (operator commands), creating nothing. */
  constructor(file: string, options: { existing?: boolean } = {}) {
    this.location = file;
    this.db = openDatabase(file, options);
    this.batch = new WriteBatch(this.db, file, () => {
      this.messages.forgetAll();
      this.touches.forgetAll();
    });
    this.messages = new MessageRows(this.db);
    this.touches = new InstanceTouches(this.db);
    this.budgets = new SqliteBudgetCounters(this.db, this.batch);
    this.runtimeEventWriter = new RuntimeEventWriter({ db: this.db, batch: this.batch });
    if (!options.existing) this.checkpointer = new Checkpointer({ db: this.db, file });
    this.pendingSeq = newestPendingSeq(this.db);
  }

  /** Commits made so far (one sync each). */
  get commits(): number {
    return this.batch.commits;
  }

  /** Commits that were synced to disk (the others were made durable by a later one). */
  get syncs(): number {
    return this.batch.syncs;
  }

  accept(swarm: string, event: AgentEvent, acceptedAt: number, options?: WriteOptions): Promise<void> {
    return this.write(() => {
      insertInboxEvent(this.db, swarm, event, acceptedAt);
      const instance = { swarm, agent: event.agent, instanceKey: event.instanceKey };
      if (this.touches.touch(instance)) this.messages.startEmpty(instance);
    }, options);
  }

  async inboxRecord(swarm: string, eventId: string): Promise<InboxRecord | undefined> {
    return this.read(() => {
      const record = selectInboxRecord(this.db, swarm, eventId);
      return record === undefined ? undefined : withApprovals(this.db, swarm, record);
    });
  }

  async newestEventId(swarm: string, options: { prefix: string; length: number }): Promise<string | undefined> {
    return this.read(() => newestInboxEventId(this.db, swarm, options));
  }

  eventsByIdPrefix = async (swarm: string, query: { idPrefix: string; limit: number }) =>
    this.read(() => selectInboxByPrefix(this.db, swarm, query));

  async unanswered(swarm: string): Promise<InboxRecord[]> {
    return this.read(() => selectUnanswered(this.db, swarm).map((record) => withApprovals(this.db, swarm, record)));
  }

  recordInterrupted(swarm: string, eventId: string, crash?: string): void {
    try {
      this.batch.run(() => recordInboxCrash(this.db, swarm, eventId, crash));
    } catch {
      // A store fault: the count is lost with the tick's batch (the event itself stays unanswered).
    }
  }

  answer(swarm: string, eventId: string, outcome: TurnOutcome): Promise<void> {
    return this.write(() => setInboxOutcome(this.db, swarm, eventId, outcome));
  }

  commit(instance: InstanceRef, commit: InstanceCommit, outcome?: TurnOutcome, options?: WriteOptions): Promise<void> {
    return this.write(() => {
      for (const change of commit.changes ?? []) this.messages.apply(instance, change);
      for (const id of commit.consumed ?? []) deletePendingResult(this.db, instance, id);
      for (const result of commit.added ?? []) this.insertPending(instance, result);
      for (const [extension, value] of Object.entries(commit.extensionState ?? {}))
        setExtensionState(this.db, instance, extension, value);
      for (const request of commit.approvals?.requested ?? []) insertApproval(this.db, instance.swarm, request);
      for (const id of commit.approvals?.applied ?? []) markApplied(this.db, instance.swarm, id);
      if (outcome !== undefined) setInboxOutcome(this.db, instance.swarm, outcome.eventId, outcome);
      this.touches.touchState(instance);
    }, options);
  }

  async approvals(query: ApprovalQuery): Promise<Approval[]> {
    return this.read(() => selectApprovals(this.db, query));
  }

  decideApproval(swarm: string, id: string, decision: ApprovalDecision): Promise<ApprovalDecided> {
    let answer: ApprovalDecided = { type: "missing" };
    const durable = this.write(() => {
      answer = decideApprovalRows(this.db, swarm, id, decision);
    });
    return durable.then(() => answer);
  }

  addPendingResult(instance: InstanceRef, result: PendingResult, options?: WriteOptions): Promise<void> {
    return this.write(() => {
      this.insertPending(instance, result);
      this.touches.touchState(instance);
    }, options);
  }

  /** A new conversation's (its row made by this process, no state written since) is empty without a read. */
  instanceState(instance: InstanceRef): InstanceState {
    if (this.touches.knownEmpty(instance)) return { messages: [], pendingResults: [], extensionState: {} };
    return this.read(() => readInstanceState(this.db, instance));
  }

  async olderMessages(instance: InstanceRef, query: OlderMessagesQuery): Promise<Message[]> {
    return this.messages.older(instance, query);
  }

  exportInstance(instance: InstanceRef): InstanceSnapshot {
    return exportInstanceRows(this.db, instance);
  }

  importInstance(instance: InstanceRef, snapshot: InstanceSnapshot): Promise<void> {
    return this.write(
      () => {
        importInstanceRows(this.db, instance, snapshot, { id: pendingResultId, nextSeq: () => ++this.pendingSeq });
        this.messages.forget(instance);
        this.touches.forget(instance);
      },
      { sync: false },
    );
  }

  clearConversation(instance: InstanceRef): Promise<boolean> {
    const had = this.messages.count(instance) > 0;
    return this.write(() => this.messages.deleteAll(instance)).then(() => had);
  }

  deleteInstance(instance: InstanceRef): Promise<boolean> {
    this.runtimeEventWriter.write();
    const known = instanceKnown(this.db, instance);
    return this.write(() => {
      deleteInstanceRows(this.db, instance);
      this.messages.forget(instance);
      this.touches.forget(instance);
      this.runtimeEventWriter.forgetCounts();
    }).then(() => known);
  }

  async instances(swarm?: string): Promise<StoredInstance[]> {
    return this.read(() => listInstances(this.db, swarm));
  }

  /** Given cursors now, kept and written in batches (runtime-event-writer.ts); every read below sees them. */
  appendRuntimeEvents(swarm: string, events: readonly RuntimeEvent[]): StoredRuntimeEvent[] {
    return this.runtimeEventWriter.append(swarm, events);
  }

  async runtimeEvents(query: RuntimeEventQuery): Promise<StoredRuntimeEvent[]> {
    this.runtimeEventWriter.write();
    return this.read(() => selectRuntimeEvents(this.db, query));
  }

  /** A batch at a time, in the tick's transaction, not synced: nothing waits on it (runtime-event-writer.ts). */
  pruneRuntimeEvents(swarm: string, options: RuntimeEventPruning): Promise<number> {
    let deleted = 0;
    const write = () => void (deleted = this.runtimeEventWriter.prune(swarm, options));
    return this.write(write, { sync: false }).then(() => deleted);
  }

  /** Marks this database as a cluster node's local copy, or (undefined) as a single host's (cluster-node-mark.ts). */
  markClusterNode(mark: ClusterNodeMark | undefined): void {
    writeClusterNodeMark(this.db, mark);
  }

  /** The cluster node whose local copy this database is, if a cluster node ran on it last. */
  clusterNodeMark(): ClusterNodeMark | undefined {
    return readClusterNodeMark(this.db);
  }

  commitNow(): void {
    this.batch.flush();
  }

  commitRuntimeEvents(): Promise<void> {
    if (!this.runtimeEventWriter.write()) return Promise.reject(new Error("the store dropped the runtime events"));
    return this.write(() => {}, { sync: false });
  }

  /** Commits what is written so far now, with the runtime events waiting, instead of at the end of the tick. */
  flush(): void {
    this.runtimeEventWriter.write();
    this.batch.flush();
  }

  /** Resolves once everything written so far is committed and, where asked, synced. */
  settled(): Promise<void> {
    this.runtimeEventWriter.write();
    return this.batch.settled();
  }

  async close(): Promise<void> {
    this.runtimeEventWriter.write();
    await this.batch.close();
    await this.checkpointer?.stop();
    this.db.close();
  }

  /** A write in the tick's batch, refused as a rejected promise (never a throw) when the store cannot make it. */
  private write(write: () => void, options?: WriteOptions): Promise<void> {
    try {
      return this.batch.durable(write, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A read, with a damaged page or a failing disk answered as a coded store fault (store-fault.ts). */
  private read<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      throw storeFault(error, this.location);
    }
  }

  private insertPending(instance: InstanceRef, result: PendingResult): void {
    this.pendingSeq += 1;
    insertPendingResult(this.db, instance, result, this.pendingSeq);
  }
}
