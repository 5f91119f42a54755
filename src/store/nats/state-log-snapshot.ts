/**
 * Compaction of an instance's state log: once the records written since its last snapshot pass a threshold, the
 * owner writes the instance's whole state (an InstanceSnapshot, store/instance-snapshot.ts) as one or more
 * `snapshot` parts in a row, then purges the records before the first part. A replay keeps only what follows the
 * last complete snapshot: the snapshot, then the records after it. Parts of one snapshot are queued together and so
 * always stand next to each other in the log; a snapshot whose parts are not all there in order (its writer was
 * fenced off or cut off halfway) is ignored, and the records around it are replayed as if it were not there.
 */
import { SystemError, UsageError } from "../../shared/errors.ts";
import type { InstanceSnapshot } from "../instance-snapshot.ts";

/** One part of a snapshot, as the log keeps it. `data` is a slice of the snapshot's JSON. */
export type SnapshotPart = { op: "snapshot"; id: string; part: number; parts: number; data: string };

export interface CompactionSettings {
  /** Records written since the last snapshot that make the next one due. Default 1000. */
  records: number;
  /** Bytes (of JSON) written since the last snapshot that make the next one due. Default 4 MiB. */
  bytes: number;
}

export const DEFAULT_COMPACTION: CompactionSettings = { records: 1000, bytes: 4 * 1024 * 1024 };
export const SNAPSHOT_RECORDS_ENV = "GOONDAN_CLUSTER_SNAPSHOT_RECORDS";
export const SNAPSHOT_BYTES_ENV = "GOONDAN_CLUSTER_SNAPSHOT_BYTES";

/**
 * Characters of snapshot JSON per part: at most 3 bytes each in UTF-8 (and a quote or backslash escaped to 2), so a
 * part stays far under NATS's default 1 MiB payload even alone in a message.
 */
export const SNAPSHOT_PART_CHARS = 128 * 1024;

/** The thresholds from GOONDAN_CLUSTER_SNAPSHOT_RECORDS and GOONDAN_CLUSTER_SNAPSHOT_BYTES (whole numbers ≥ 1). */
export function readCompactionSettings(env: Record<string, string | undefined>): CompactionSettings {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1)
      throw new UsageError(
        "E_CLUSTER_CONFIG_INVALID",
        `${name}: expected a whole number, at least 1, got ${JSON.stringify(raw)}`,
      );
    return value;
  };
  return {
    records: read(SNAPSHOT_RECORDS_ENV, DEFAULT_COMPACTION.records),
    bytes: read(SNAPSHOT_BYTES_ENV, DEFAULT_COMPACTION.bytes),
  };
}

/**
 * A snapshot is due once the records since the last one pass either threshold, and they weigh at least half of
 * that snapshot: a large state is not written again for every few records (what compaction writes stays within
 * twice what the instance writes).
 */
export function compactionDue(
  settings: CompactionSettings,
  since: { records: number; bytes: number; snapshotBytes: number },
): boolean {
  return (since.records >= settings.records || since.bytes >= settings.bytes) && since.bytes * 2 >= since.snapshotBytes;
}

export function snapshotParts(snapshot: InstanceSnapshot, id: string, partChars = SNAPSHOT_PART_CHARS): SnapshotPart[] {
  const json = JSON.stringify(snapshot);
  const parts = Math.max(1, Math.ceil(json.length / partChars));
  return Array.from({ length: parts }, (_, part) => ({
    op: "snapshot",
    id,
    part,
    parts,
    data: json.slice(part * partChars, (part + 1) * partChars),
  }));
}

const isPart = (record: { op: string }): record is SnapshotPart => record.op === "snapshot";

/** What a replay applies: the last complete snapshot (if any), then every record after it, oldest first. */
export interface LatestState<Record> {
  snapshot?: InstanceSnapshot;
  /** The length of the snapshot's JSON. */
  snapshotBytes: number;
  tail: Record[];
}

/** Folds the log's records, oldest first, into the last complete snapshot and the records after it. */
export class SnapshotReader<Record extends { op: string }> {
  private latest: LatestState<Record> = { snapshotBytes: 0, tail: [] };
  private assembling: { id: string; parts: number; data: string[] } | undefined;

  add(record: Record | SnapshotPart): void {
    if (!isPart(record)) {
      this.assembling = undefined;
      this.latest.tail.push(record);
      return;
    }
    if (record.part === 0) this.assembling = { id: record.id, parts: record.parts, data: [] };
    const assembling = this.assembling;
    if (assembling === undefined || assembling.id !== record.id || assembling.data.length !== record.part) {
      this.assembling = undefined;
      return;
    }
    assembling.data.push(record.data);
    if (assembling.data.length < assembling.parts) return;
    this.assembling = undefined;
    const json = assembling.data.join("");
    let snapshot: InstanceSnapshot;
    try {
      snapshot = JSON.parse(json) as InstanceSnapshot;
    } catch (error) {
      throw new SystemError(
        "E_CLUSTER_STATE_UNREADABLE",
        `snapshot ${record.id} of the state log is not JSON (${(error as Error).message}); its parts are all there, so the log itself is damaged`,
      );
    }
    this.latest = { snapshot, snapshotBytes: json.length, tail: [] };
  }

  get state(): LatestState<Record> {
    return this.latest;
  }
}
