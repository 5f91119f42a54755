/**
 * Reading an instance's state log back for a replay: every message of its subject from the start, up to the last
 * one stored now, with the fence records left out and grouped records taken apart (batched-appender.ts), gathered
 * into the last complete snapshot and the records after it (state-log-snapshot.ts). A read that stops hearing from
 * the server for a while ends with what it has.
 */
import { DeliverPolicy } from "@nats-io/jetstream";
import { recordsOf, type RecordBatch } from "./batched-appender.ts";
import type { JetStreamHandle } from "./jetstream-handle.ts";
import { natsUnavailable } from "./nats-errors.ts";
import { type LatestState, type SnapshotPart, SnapshotReader } from "./state-log-snapshot.ts";
import type { StateRecord } from "./state-record.ts";

const REPLAY_IDLE_MS = 5000;

/** The last complete snapshot of `subject` in `stream` and every record after it up to now. */
export async function readStateLog(options: {
  connection: JetStreamHandle;
  stream: string;
  subject: string;
}): Promise<LatestState<StateRecord>> {
  const { connection, stream, subject } = options;
  const reader = new SnapshotReader<StateRecord>();
  let consumer;
  try {
    consumer = await connection.js.consumers.get(stream, {
      filter_subjects: subject,
      deliver_policy: DeliverPolicy.All,
    });
  } catch (error) {
    throw natsUnavailable(`reading the state of ${subject}`, error);
  }
  const messages = await consumer.consume({ idle_heartbeat: 1000, max_messages: 1000 });
  const idle = setTimeout(() => messages.stop(), REPLAY_IDLE_MS);
  try {
    for await (const message of messages) {
      idle.refresh();
      if (!message.headers?.has("Gdn-Fence"))
        for (const record of recordsOf(
          message.json<StateRecord | SnapshotPart | RecordBatch<StateRecord | SnapshotPart>>(),
        ))
          reader.add(record);
      if (message.info.pending === 0) break;
    }
  } finally {
    clearTimeout(idle);
    messages.stop();
  }
  return reader.state;
}
