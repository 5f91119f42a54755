/**
 * Each instance's durable state in JetStream, so the node that takes an instance over can read it: a log of the
 * store writes its owner made (events accepted, commits, answers, pending results, crashes, a cleared
 * conversation), one subject per instance in the stream GDN_<swarm>_STATE, written only through a FencedWriter
 * holding the instance's lease. A new owner `take`s the log (the fence: from then on every append of the old
 * owner is refused by the server), then replays every record before the fence into its own embedded store, on a
 * clean slate for that instance. Appends of one instance are made one message at a time, in the order of the
 * writes; appends made while a message is on its way go out together as the next one (batched-appender.ts).
 * Once the records since the last snapshot pass a threshold, the owner writes a snapshot of the instance's state
 * and purges the records before it (state-log-snapshot.ts); a replay imports the last snapshot and applies the
 * records after it (read-state-log.ts).
 */
import { randomUUID } from "node:crypto";
import { RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { describe, SystemError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import { canSnapshot, type InstanceSnapshots } from "../instance-snapshot.ts";
import type { InstanceRef, Store } from "../store.ts";
import { BatchedAppender } from "./batched-appender.ts";
import { FencedWriter, type AppendOutcome } from "./fenced-writer.ts";
import type { FenceToken, JetStreamHandle, StateLogNames } from "./jetstream-handle.ts";
import { natsUnavailable } from "./nats-errors.ts";
import { readStateLog } from "./read-state-log.ts";
import { compactionDue, DEFAULT_COMPACTION, snapshotParts, type CompactionSettings } from "./state-log-snapshot.ts";
import { applyRecord, type StateRecord } from "./state-record.ts";

export type { StateRecord } from "./state-record.ts";

export class InstanceStateLog {
  /** Per owned instance: its grouped appender over its fenced writer, and whether every write so far is known in the log. */
  private readonly writers = new Map<string, Held>();

  private constructor(
    private readonly connection: JetStreamHandle,
    private readonly names: StateLogNames,
    private readonly compaction: CompactionSettings,
    private readonly logger: Logger | undefined,
  ) {}

  /** `compaction`: when a snapshot is due (default DEFAULT_COMPACTION); `logger`: where a failed compaction is told. */
  static async open(options: {
    connection: JetStreamHandle;
    names: StateLogNames;
    compaction?: CompactionSettings;
    logger?: Logger;
  }): Promise<InstanceStateLog> {
    const { connection, names } = options;
    // Each record is republished once stored, on `storedStateSubjects`: the node that accepted an event for the
    // instance takes the event's answer from there (src/cluster/answers/answer-watch.ts). A stream made before without it
    // gets it where the server allows (NATS 2.9 refuses to add it to an existing stream; later servers take it);
    // without it answers still arrive, one hop later, by the owner's request: not worth refusing to start for.
    const republish = { src: names.stateSubjects, dest: names.storedStateSubjects };
    try {
      await connection.jsm.streams.add({
        name: names.stateStream,
        subjects: [names.stateSubjects],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        description: `goondan instance state of ${names.swarm}`,
        republish,
      });
    } catch (error) {
      const info = await connection.jsm.streams.info(names.stateStream).catch(() => undefined);
      if (info === undefined) throw natsUnavailable(`opening the state stream ${names.stateStream}`, error);
      if (info.config.republish?.dest !== republish.dest)
        await connection.jsm.streams.update(names.stateStream, { republish }).catch(() => undefined);
    }
    return new InstanceStateLog(connection, names, options.compaction ?? DEFAULT_COMPACTION, options.logger);
  }

  /**
   * Become the instance's writer under `lease`, and replay its log into `local` (its old local state removed
   * first). False when a newer lease holder took the log already (this node must not run the instance).
   * `resumeAfter`: the sequence of this node's own last write when it held the instance before (settledSequence);
   * when the log's last record is still that one, nobody wrote since and `local` is current: only the fence is
   * written, nothing is replayed (`resumed`).
   */
  async take(
    ref: InstanceRef,
    lease: FenceToken,
    local: Store,
    options: { resumeAfter?: number } = {},
  ): Promise<{ taken: false } | { taken: true; replayed: number; resumed: boolean; fromSnapshot?: true }> {
    const subject = this.names.stateSubject(ref.agent, ref.instanceKey);
    const taken = await FencedWriter.take({
      connection: this.connection,
      stream: this.names.stateStream,
      subject,
      lease,
    });
    if (taken.status !== "taken") return { taken: false };
    if (options.resumeAfter !== undefined && taken.after === options.resumeAfter) {
      this.writers.set(key(ref), held(taken.writer, local));
      return { taken: true, replayed: 0, resumed: true };
    }
    const { snapshot, snapshotBytes, tail } = await readStateLog({
      connection: this.connection,
      stream: this.names.stateStream,
      subject,
    });
    if (snapshot !== undefined && !canSnapshot(local))
      throw new SystemError(
        "E_CLUSTER_STATE_UNREADABLE",
        `${ref.agent}/${ref.instanceKey}: the state log holds a snapshot and this node's store cannot import one`,
      );
    await local.deleteInstance(ref);
    if (snapshot !== undefined) await (local as Store & InstanceSnapshots).importInstance(ref, snapshot);
    // An ordered store applies each write within its call: the records go in one after the other without a commit
    // each, and are waited for together.
    const applied: Promise<void>[] = [];
    for (const record of tail) {
      const write = applyRecord(local, ref, record);
      if (local.ordered) applied.push(write);
      else await write;
    }
    await Promise.all(applied);
    const writer = held(taken.writer, local);
    writer.since = {
      records: tail.length,
      bytes: tail.reduce((sum, record) => sum + JSON.stringify(record).length, 0),
      snapshotBytes,
    };
    this.writers.set(key(ref), writer);
    return {
      taken: true,
      replayed: tail.length,
      resumed: false,
      ...(snapshot === undefined ? {} : { fromSnapshot: true as const }),
    };
  }

  /**
   * The sequence of this node's last write to the instance's log, when every write made so far is known to be in
   * it (none queued, none failed or unanswered); undefined otherwise (then only a replay makes a local copy right).
   */
  settledSequence(ref: InstanceRef): number | undefined {
    const held = this.writers.get(key(ref));
    return held === undefined || held.pending > 0 || held.failed ? undefined : held.writer.sequence;
  }

  /** This node no longer writes the instance's log. */
  drop(ref: InstanceRef): void {
    this.writers.delete(key(ref));
  }

  owns(ref: InstanceRef): boolean {
    return this.writers.has(key(ref));
  }

  /** Appends a record after the instance's earlier ones; throws when this node was fenced off (or NATS is unreachable). */
  async append(ref: InstanceRef, record: StateRecord): Promise<void> {
    const held = this.writers.get(key(ref));
    if (held === undefined) return;
    const json = JSON.stringify(record);
    const written = this.write(ref, held, json);
    held.since.records += 1;
    held.since.bytes += json.length;
    if (held.compaction === undefined && held.local !== undefined && compactionDue(this.compaction, held.since)) {
      void this.compactHeld(ref, held).catch((error: unknown) =>
        this.logger?.warn(
          { agent: ref.agent, instanceKey: ref.instanceKey, error: describe(error) },
          "could not compact an instance's state log; it is tried again after the next writes",
        ),
      );
    }
    await written;
  }

  /**
   * Writes a snapshot of the instance's state now and purges the records before it (as done on its own once enough
   * records were written), after any compaction on its way. Resolves with the number of messages purged; throws
   * E_CLUSTER_FENCED when another node took the instance over; 0 when this node does not own it.
   */
  async compact(ref: InstanceRef): Promise<number> {
    const held = this.writers.get(key(ref));
    if (held === undefined || held.local === undefined) return 0;
    await held.compaction?.catch(() => undefined);
    return this.compactHeld(ref, held);
  }

  /**
   * Clears the conversation of an instance no node runs (a `fresh` restart), under `lease` (claimed by the caller
   * for this alone): takes the log (the fence) and replays it into `local`, clears the conversation there and in the
   * log, then compacts the log so the old conversation leaves it. This node does not keep the instance. False when
   * a newer lease holder took the log already. Throws E_CLUSTER_FENCED when one takes it meanwhile.
   */
  async clearUnowned(ref: InstanceRef, lease: FenceToken, local: Store): Promise<boolean> {
    const taken = await this.take(ref, lease, local);
    if (!taken.taken) return false;
    try {
      await local.clearConversation(ref);
      await this.append(ref, { op: "clear" });
      await this.compact(ref);
      return true;
    } finally {
      this.drop(ref);
    }
  }

  /** One compaction at a time per instance (see compactHeld). */
  private compactHeld(ref: InstanceRef, held: Held): Promise<number> {
    const compaction = this.snapshotAndPurge(ref, held).finally(() => {
      if (held.compaction === compaction) held.compaction = undefined;
    });
    held.compaction = compaction;
    return compaction;
  }

  /**
   * The snapshot is read from the local store and its parts queued in the same tick, right behind the records
   * queued so far: every record before its first part was applied to the local store before it was queued, so the
   * snapshot covers it, and every record queued later follows the last part. Only once every part is in the log are
   * the records before the first part purged: a crash before (or a refused part) leaves the log as it was, plus parts
   * a replay ignores. The purge removes only records this snapshot covers, so it is harmless even after another
   * node fenced this one off (its snapshot is before that node's fence, and that node replays from it).
   */
  private async snapshotAndPurge(ref: InstanceRef, held: Held): Promise<number> {
    const parts = snapshotParts((held.local as InstanceSnapshots).exportInstance(ref), randomUUID());
    const writes = parts.map((part) => this.write(ref, held, JSON.stringify(part)));
    held.since = { records: 0, bytes: 0, snapshotBytes: parts.reduce((sum, part) => sum + part.data.length, 0) };
    const [first] = await Promise.all(writes);
    const subject = this.names.stateSubject(ref.agent, ref.instanceKey);
    try {
      return (
        await this.connection.jsm.streams.purge(this.names.stateStream, { filter: subject, seq: first as number })
      ).purged;
    } catch (error) {
      throw natsUnavailable(`purging ${subject} before its snapshot`, error);
    }
  }

  /** Queues `json` on the instance's appender at once; resolves with the sequence of the message that holds it. */
  private async write(ref: InstanceRef, held: Held, json: string): Promise<number> {
    held.pending++;
    let outcome: AppendOutcome;
    try {
      outcome = await held.appender.append(json);
    } catch (error) {
      held.failed = true;
      throw error;
    } finally {
      held.pending--;
    }
    if (outcome.status === "fenced") {
      held.failed = true;
      // Only this writer: a late refusal of a write made before this node took the instance back must not drop
      // the writer it took it back with.
      if (this.writers.get(key(ref)) === held) this.writers.delete(key(ref));
      throw new SystemError(
        "E_CLUSTER_FENCED",
        `${ref.agent}/${ref.instanceKey}: another node took this instance over; this node's write was refused`,
      );
    }
    return outcome.sequence;
  }
}

interface Held {
  writer: FencedWriter;
  appender: BatchedAppender;
  /** Appends on their way. */
  pending: number;
  /** An append failed or was refused: the log may lack a write the local store holds. */
  failed: boolean;
  /** The store the instance was replayed into, when it can export a snapshot (none: the log is never compacted). */
  local: (Store & InstanceSnapshots) | undefined;
  /** What was written since the last snapshot (or since the take), and that snapshot's size. */
  since: { records: number; bytes: number; snapshotBytes: number };
  /** The compaction on its way, if any. */
  compaction: Promise<number> | undefined;
}

const held = (writer: FencedWriter, local: Store): Held => ({
  writer,
  appender: new BatchedAppender(writer),
  pending: 0,
  failed: false,
  local: canSnapshot(local) ? local : undefined,
  since: { records: 0, bytes: 0, snapshotBytes: 0 },
  compaction: undefined,
});

const key = (ref: InstanceRef) => `${ref.swarm}\n${ref.agent}\n${ref.instanceKey}`;
