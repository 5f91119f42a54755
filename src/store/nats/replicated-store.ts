/**
 * The store of a cluster node: its embedded store, with every write about an instance this node owns also
 * appended to that instance's state log in JetStream (instance-state-log.ts), so whichever node takes the instance
 * over next replays it and carries on where this one stopped. A write resolves once both hold it; a write the log
 * refuses (another node took the instance over) fails, and the turn that made it does not go on. Reads are the
 * embedded store's: the owner's local copy is complete for the instances it owns. Runtime events stay local.
 * It is not `ordered`: the orchestrator waits for each write before it hands an answer on.
 *
 * For an instance this node owns, the state log is the durable copy (a node taking it over, or this node after a
 * restart, rebuilds the local copy from the log alone), so its hot writes (accept, commit, pending result) are made
 * locally without waiting for the disk's sync, and appended: one JetStream acknowledgement per write, not an fsync
 * followed by one. The local write is made first: an ordered embedded store applies it within the call (throwing
 * there if it cannot, and then nothing is appended), so the append starts at once, while its transaction commits;
 * a store that is not ordered is waited for before the append.
 *
 * Clearing the conversation of an instance this node does not own (a `fresh` restart of an instance no node runs)
 * also clears it in the instance's log when `clearUnowned` is given (src/cluster/instances/clear-unowned-instance.ts), so the node that
 * claims it next does not replay the old conversation.
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { Approval, ApprovalDecision } from "../../protocol/approval.ts";
import type { Message, OlderMessagesQuery, PendingResult } from "../../protocol/conversation.ts";
import type { InstanceCommit, InstanceState } from "../../protocol/instance-state.ts";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
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
import type { InstanceStateLog, StateRecord } from "./instance-state-log.ts";

export class ReplicatedStore implements Store {
  readonly ordered = false;

  constructor(
    private readonly local: Store,
    private readonly log: InstanceStateLog,
    private readonly options: { clearUnowned?: (instance: InstanceRef) => Promise<unknown> } = {},
  ) {}

  get location(): string {
    return `${this.local.location} (+ NATS JetStream)`;
  }

  accept(swarm: string, event: AgentEvent, acceptedAt: number, options?: WriteOptions): Promise<void> {
    const ref = { swarm, agent: event.agent, instanceKey: event.instanceKey };
    return this.replicated(ref, options, (local) => this.local.accept(swarm, event, acceptedAt, local), {
      op: "accept",
      event,
      acceptedAt,
    });
  }

  inboxRecord(swarm: string, eventId: string): Promise<InboxRecord | undefined> {
    return this.local.inboxRecord(swarm, eventId);
  }

  newestEventId(swarm: string, options: { prefix: string; length: number }): Promise<string | undefined> {
    return this.local.newestEventId(swarm, options);
  }

  eventsByIdPrefix(swarm: string, query: { idPrefix: string; limit: number }): Promise<InboxRecord[]> {
    return this.local.eventsByIdPrefix(swarm, query);
  }

  unanswered(swarm: string): Promise<InboxRecord[]> {
    return this.local.unanswered(swarm);
  }

  recordInterrupted(swarm: string, eventId: string, crash?: string): void {
    this.local.recordInterrupted(swarm, eventId, crash);
    void this.refOf(swarm, eventId)
      .then((ref) =>
        ref
          ? this.log.append(ref, { op: "interrupted", eventId, ...(crash === undefined ? {} : { crash }) })
          : undefined,
      )
      .catch(() => undefined);
  }

  async answer(swarm: string, eventId: string, outcome: TurnOutcome): Promise<void> {
    await this.local.answer(swarm, eventId, outcome);
    const ref = await this.refOf(swarm, eventId);
    if (ref) await this.log.append(ref, { op: "answer", eventId, outcome });
  }

  commit(instance: InstanceRef, commit: InstanceCommit, outcome?: TurnOutcome, options?: WriteOptions): Promise<void> {
    return this.replicated(instance, options, (local) => this.local.commit(instance, commit, outcome, local), {
      op: "commit",
      commit,
      ...(outcome ? { outcome } : {}),
    });
  }

  addPendingResult(instance: InstanceRef, result: PendingResult, options?: WriteOptions): Promise<void> {
    return this.replicated(instance, options, (local) => this.local.addPendingResult(instance, result, local), {
      op: "pending",
      result,
    });
  }

  instanceState(instance: InstanceRef): InstanceState {
    return this.local.instanceState(instance);
  }

  olderMessages(instance: InstanceRef, query: OlderMessagesQuery): Promise<Message[]> {
    return this.local.olderMessages(instance, query);
  }

  async clearConversation(instance: InstanceRef): Promise<boolean> {
    const had = await this.local.clearConversation(instance);
    if (this.log.owns(instance)) await this.log.append(instance, { op: "clear" });
    else await this.options.clearUnowned?.(instance);
    return had;
  }

  approvals(query: ApprovalQuery): Promise<Approval[]> {
    return this.local.approvals(query);
  }

  /** Decided here and in the instance's log, so a node taking the instance over holds the decision too. */
  async decideApproval(swarm: string, id: string, decision: ApprovalDecision): Promise<ApprovalDecided> {
    const decided = await this.local.decideApproval(swarm, id, decision);
    if (decided.type === "decided") {
      const { agent, instanceKey } = decided.approval;
      await this.log.append({ swarm, agent, instanceKey }, { op: "decide", approvalId: id, decision });
    }
    return decided;
  }

  deleteInstance(instance: InstanceRef): Promise<boolean> {
    return this.local.deleteInstance(instance);
  }

  instances(swarm?: string): Promise<StoredInstance[]> {
    return this.local.instances(swarm);
  }

  appendRuntimeEvents(swarm: string, events: readonly RuntimeEvent[]): StoredRuntimeEvent[] {
    return this.local.appendRuntimeEvents(swarm, events);
  }

  runtimeEvents(query: RuntimeEventQuery): Promise<StoredRuntimeEvent[]> {
    return this.local.runtimeEvents(query);
  }

  commitNow(): void {
    this.local.commitNow();
  }

  commitRuntimeEvents(): Promise<void> {
    return this.local.commitRuntimeEvents();
  }

  /** Runtime events stay where they were written (this node's embedded store): pruned there. */
  pruneRuntimeEvents(swarm: string, options: RuntimeEventPruning): Promise<number> {
    return this.local.pruneRuntimeEvents(swarm, options);
  }

  close(): Promise<void> {
    return this.local.close();
  }

  /**
   * A write of an owned instance: made locally without the sync (the log is its durable copy) and appended;
   * resolves once both hold it (and only then is it `committed`). Of an instance this node does not own: the local
   * write as asked, alone.
   */
  private async replicated(
    ref: InstanceRef,
    options: WriteOptions | undefined,
    write: (options: WriteOptions | undefined) => Promise<void>,
    record: StateRecord,
  ): Promise<void> {
    if (!this.log.owns(ref)) return write(options);
    const { committed, ...rest } = options ?? {};
    const local = write({ ...rest, sync: false });
    if (!this.local.ordered) await local;
    await Promise.all([local, this.log.append(ref, record)]);
    committed?.();
  }

  private async refOf(swarm: string, eventId: string): Promise<InstanceRef | undefined> {
    const record = await this.local.inboxRecord(swarm, eventId);
    return record ? { swarm, agent: record.event.agent, instanceKey: record.event.instanceKey } : undefined;
  }
}
