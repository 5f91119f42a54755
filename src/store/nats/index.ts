/**
 * The JetStream backend's one entry, for the layers above the store (src/cluster builds on it): an instance's state
 * log and the store that replicates each owned instance's writes into it, the records the log carries (read back by
 * the node that accepted an event, for its answer), the compaction settings a node is started with, and how a NATS
 * failure is read and reported. Nothing outside src/store names the files behind it
 * (test/architecture/store-entries.test.ts).
 */
export { InstanceStateLog } from "./instance-state-log.ts";
export { ReplicatedStore } from "./replicated-store.ts";
export { recordsOf, type RecordBatch } from "./batched-appender.ts";
export type { StateRecord } from "./state-record.ts";
export { readCompactionSettings, type CompactionSettings } from "./state-log-snapshot.ts";
export { isWrongRevision, natsUnavailable } from "./nats-errors.ts";
