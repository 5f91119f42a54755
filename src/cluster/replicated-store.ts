/**
 * The store of a cluster node: its embedded store, with every write about an instance this node owns also
 * appended to that instance's state log in JetStream (instance-state-log.ts), so whichever node takes the instance
 * over next replays it and carries on where this one stopped. A write resolves once both hold it; a write the log
 * refuses (another node took the instance over) fails, and the turn that made it does not go on. Reads are the
 * embedded store's: the owner's local copy is complete for the instances it owns. Runtime events stay local.
 * It is not `ordered`: the orchestrator waits for each write before it hands an answer on.
 */
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { Approval, ApprovalDecision } from "../protocol/approval.ts";
import type { PendingResult } from "../protocol/conversation.ts";
import type { InstanceCommit, InstanceState } from "../protocol/instance-state.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { ApprovalDecided, ApprovalQuery, InboxRecord, InstanceRef, RuntimeEventQuery, Store, StoredInstance, StoredRuntimeEvent, WriteOptions } from "../store/store.ts";
import type { InstanceStateLog } from "./instance-state-log.ts";

export class ReplicatedStore implements Store {
  readonly ordered = false;

  constructor(
    private readonly local: Store,
    private readonly log: InstanceStateLog,
  ) {}

  get location(): string {
    return `${this.local.location} (+ NATS JetStream)`;
  }

  async accept(swarm: string, event: AgentEvent, acceptedAt: number, options?: WriteOptions): Promise<void> {
    await this.local.accept(swarm, event, acceptedAt, options);
    await this.log.append({ swarm, agent: event.agent, instanceKey: event.instanceKey }, { op: "accept", event, acceptedAt });
  }

  inboxRecord(swarm: string, eventId: string): Promise<InboxRecord | undefined> {
    return this.local.inboxRecord(swarm, eventId);
  }

  unanswered(swarm: string): Promise<InboxRecord[]> {
    return this.local.unanswered(swarm);
  }

  recordInterrupted(swarm: string, eventId: string, crash?: string): void {
    this.local.recordInterrupted(swarm, eventId, crash);
    void this.refOf(swarm, eventId).then((ref) => (ref ? this.log.append(ref, { op: "interrupted", eventId, ...(crash === undefined ? {} : { crash }) }) : undefined)).catch(() => undefined);
  }

  async answer(swarm: string, eventId: string, outcome: TurnOutcome): Promise<void> {
    await this.local.answer(swarm, eventId, outcome);
    const ref = await this.refOf(swarm, eventId);
    if (ref) await this.log.append(ref, { op: "answer", eventId, outcome });
  }

  async commit(instance: InstanceRef, commit: InstanceCommit, outcome?: TurnOutcome, options?: WriteOptions): Promise<void> {
    await this.local.commit(instance, commit, outcome, options);
    await this.log.append(instance, { op: "commit", commit, ...(outcome ? { outcome } : {}) });
  }

  async addPendingResult(instance: InstanceRef, result: PendingResult, options?: WriteOptions): Promise<void> {
    await this.local.addPendingResult(instance, result, options);
    await this.log.append(instance, { op: "pending", result });
  }

  instanceState(instance: InstanceRef): Promise<InstanceState> {
    return this.local.instanceState(instance);
  }

  async clearConversation(instance: InstanceRef): Promise<boolean> {
    const had = await this.local.clearConversation(instance);
    await this.log.append(instance, { op: "clear" });
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

  appendRuntimeEvents(swarm: string, events: readonly RuntimeEvent[]): void {
    this.local.appendRuntimeEvents(swarm, events);
  }

  runtimeEvents(query: RuntimeEventQuery): Promise<StoredRuntimeEvent[]> {
    return this.local.runtimeEvents(query);
  }

  close(): Promise<void> {
    return this.local.close();
  }

  private async refOf(swarm: string, eventId: string): Promise<InstanceRef | undefined> {
    const record = await this.local.inboxRecord(swarm, eventId);
    return record ? { swarm, agent: record.event.agent, instanceKey: record.event.instanceKey } : undefined;
  }
}
