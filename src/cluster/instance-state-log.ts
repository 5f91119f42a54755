/**
 * Each instance's durable state in JetStream, so the node that takes an instance over can read it: a log of the
 * store writes its owner made (events accepted, commits, answers, pending results, crashes, a cleared
 * conversation), one subject per instance in the stream GDN_<swarm>_STATE, written only through a FencedWriter
 * holding the instance's lease. A new owner `take`s the log (the fence: from then on every append of the old
 * owner is refused by the server), then replays every record before the fence into its own embedded store, on a
 * clean slate for that instance. Appends of one instance are made one at a time, in the order of the writes.
 */
import { DeliverPolicy, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { ApprovalDecision } from "../protocol/approval.ts";
import type { PendingResult } from "../protocol/conversation.ts";
import type { InstanceCommit } from "../protocol/instance-state.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import { SystemError } from "../shared/errors.ts";
import type { InstanceRef, Store } from "../store/store.ts";
import type { ClusterConnection } from "./cluster-connection.ts";
import { clusterUnavailable } from "./cluster-errors.ts";
import type { ClusterNames } from "./cluster-names.ts";
import { FencedWriter } from "./fenced-writer.ts";
import type { Lease } from "./lease-table.ts";

/** One store write, as the log keeps it. */
export type StateRecord =
  | { op: "accept"; event: AgentEvent; acceptedAt: number }
  | { op: "commit"; commit: InstanceCommit; outcome?: TurnOutcome }
  | { op: "answer"; eventId: string; outcome: TurnOutcome }
  | { op: "pending"; result: PendingResult }
  | { op: "interrupted"; eventId: string; crash?: string }
  | { op: "clear" }
  | { op: "decide"; approvalId: string; decision: ApprovalDecision };

const REPLAY_IDLE_MS = 5000;

export class InstanceStateLog {
  private readonly writers = new Map<string, { writer: FencedWriter; tail: Promise<unknown> }>();

  private constructor(
    private readonly connection: ClusterConnection,
    private readonly names: ClusterNames,
  ) {}

  static async open(options: { connection: ClusterConnection; names: ClusterNames }): Promise<InstanceStateLog> {
    const { connection, names } = options;
    try {
      await connection.jsm.streams.add({ name: names.stateStream, subjects: [names.stateSubjects], retention: RetentionPolicy.Limits, storage: StorageType.File, description: `goondan instance state of ${names.swarm}` });
    } catch (error) {
      const exists = await connection.jsm.streams.info(names.stateStream).then(
        () => true,
        () => false,
      );
      if (!exists) throw clusterUnavailable(`opening the state stream ${names.stateStream}`, error);
    }
    return new InstanceStateLog(connection, names);
  }

  /**
   * Become the instance's writer under `lease`, and replay its log into `local` (its old local state removed
   * first). False when a newer lease holder took the log already (this node must not run the instance).
   */
  async take(ref: InstanceRef, lease: Lease, local: Store): Promise<{ taken: false } | { taken: true; replayed: number }> {
    const subject = this.names.stateSubject(ref.agent, ref.instanceKey);
    const taken = await FencedWriter.take({ connection: this.connection, stream: this.names.stateStream, subject, lease });
    if (taken.status !== "taken") return { taken: false };
    const records = await this.read(subject);
    await local.deleteInstance(ref);
    for (const record of records) await apply(local, ref, record);
    this.writers.set(key(ref), { writer: taken.writer, tail: Promise.resolve() });
    return { taken: true, replayed: records.length };
  }

  /** This node no longer writes the instance's log. */
  drop(ref: InstanceRef): void {
    this.writers.delete(key(ref));
  }

  owns(ref: InstanceRef): boolean {
    return this.writers.has(key(ref));
  }

  /** Appends a record after the instance's earlier ones; throws when this node was fenced off (or NATS is unreachable). */
  append(ref: InstanceRef, record: StateRecord): Promise<void> {
    const held = this.writers.get(key(ref));
    if (held === undefined) return Promise.resolve();
    const written = held.tail.then(async () => {
      const outcome = await held.writer.append(record as never);
      if (outcome.status === "fenced") {
        this.writers.delete(key(ref));
        throw new SystemError("E_CLUSTER_FENCED", `${ref.agent}/${ref.instanceKey}: another node took this instance over; this node's write was refused`);
      }
    });
    held.tail = written.catch(() => undefined);
    return written;
  }

  /** Every record of the subject up to now (the fence records left out), oldest first. */
  private async read(subject: string): Promise<StateRecord[]> {
    const records: StateRecord[] = [];
    let consumer;
    try {
      consumer = await this.connection.js.consumers.get(this.names.stateStream, { filter_subjects: subject, deliver_policy: DeliverPolicy.All });
    } catch (error) {
      throw clusterUnavailable(`reading the state of ${subject}`, error);
    }
    const messages = await consumer.consume({ idle_heartbeat: 1000 });
    const idle = setTimeout(() => messages.stop(), REPLAY_IDLE_MS);
    try {
      for await (const message of messages) {
        idle.refresh();
        if (!message.headers?.has("Gdn-Fence")) records.push(message.json<StateRecord>());
        if (message.info.pending === 0) break;
      }
    } finally {
      clearTimeout(idle);
      messages.stop();
    }
    return records;
  }
}

const key = (ref: InstanceRef) => `${ref.swarm}\n${ref.agent}\n${ref.instanceKey}`;

async function apply(local: Store, ref: InstanceRef, record: StateRecord): Promise<void> {
  switch (record.op) {
    case "accept":
      return local.accept(ref.swarm, record.event, record.acceptedAt, { sync: false });
    case "commit":
      return local.commit(ref, record.commit, record.outcome, { sync: false });
    case "answer":
      return local.answer(ref.swarm, record.eventId, record.outcome);
    case "pending":
      return local.addPendingResult(ref, record.result, { sync: false });
    case "interrupted":
      return local.recordInterrupted(ref.swarm, record.eventId, record.crash);
    case "clear":
      await local.clearConversation(ref);
      return;
    case "decide":
      await local.decideApproval(ref.swarm, record.approvalId, record.decision);
  }
}
