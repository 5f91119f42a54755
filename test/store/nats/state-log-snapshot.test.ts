import { describe, expect, it } from "bun:test";
import {
  compactionDue,
  readCompactionSettings,
  snapshotParts,
  SnapshotReader,
  DEFAULT_COMPACTION,
} from "../../../src/store/nats/state-log-snapshot.ts";
import type { InstanceSnapshot } from "../../../src/store/instance-snapshot.ts";

type Record = { op: "clear" } | { op: "answer"; eventId: string };
const snapshotOf = (text: string): InstanceSnapshot => ({
  version: 1,
  inbox: [],
  approvals: [],
  messages: [{ id: "m", data: { role: "user", content: text } } as never],
  pendingResults: [],
  extensionState: {},
});

describe("SnapshotReader", () => {
  it("keeps the last complete snapshot and only the records after it", () => {
    const reader = new SnapshotReader<Record>();
    reader.add({ op: "answer", eventId: "before" });
    for (const part of snapshotParts(snapshotOf("first"), "s1", 10)) reader.add(part);
    reader.add({ op: "answer", eventId: "between" });
    const parts = snapshotParts(snapshotOf("second".repeat(10)), "s2", 16);
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) reader.add(part);
    reader.add({ op: "clear" });
    expect(reader.state.snapshot).toEqual(snapshotOf("second".repeat(10)));
    expect(reader.state.tail).toEqual([{ op: "clear" }]);
  });

  it("ignores a snapshot with a part missing or cut by a record, and replays the records around it", () => {
    const reader = new SnapshotReader<Record>();
    for (const part of snapshotParts(snapshotOf("kept"), "s1", 10)) reader.add(part);
    reader.add({ op: "answer", eventId: "a" });
    const torn = snapshotParts(snapshotOf("torn".repeat(20)), "s2", 10);
    for (const part of torn.filter((part) => part.part !== 2)) reader.add(part);
    reader.add({ op: "answer", eventId: "b" });
    const cut = snapshotParts(snapshotOf("cut".repeat(20)), "s3", 10);
    reader.add(cut[0] as never);
    reader.add({ op: "answer", eventId: "c" });
    for (const part of cut.slice(1)) reader.add(part);
    expect(reader.state.snapshot).toEqual(snapshotOf("kept"));
    expect(reader.state.tail.map((record) => (record.op === "answer" ? record.eventId : record.op))).toEqual([
      "a",
      "b",
      "c",
    ]);
  });

  it("without a snapshot, hands every record on", () => {
    const reader = new SnapshotReader<Record>();
    reader.add({ op: "clear" });
    expect(reader.state).toEqual({ snapshotBytes: 0, tail: [{ op: "clear" }] });
  });
});

describe("compaction thresholds", () => {
  it("is due past either threshold, once the records weigh half the last snapshot", () => {
    const settings = { records: 10, bytes: 1000 };
    expect(compactionDue(settings, { records: 9, bytes: 999, snapshotBytes: 0 })).toBe(false);
    expect(compactionDue(settings, { records: 10, bytes: 50, snapshotBytes: 0 })).toBe(true);
    expect(compactionDue(settings, { records: 1, bytes: 1000, snapshotBytes: 0 })).toBe(true);
    expect(compactionDue(settings, { records: 10, bytes: 50, snapshotBytes: 101 })).toBe(false);
    expect(compactionDue(settings, { records: 10, bytes: 51, snapshotBytes: 101 })).toBe(true);
  });

  it("reads GOONDAN_CLUSTER_SNAPSHOT_RECORDS and _BYTES, and refuses what is not a whole number", () => {
    expect(readCompactionSettings({})).toEqual(DEFAULT_COMPACTION);
    expect(
      readCompactionSettings({ GOONDAN_CLUSTER_SNAPSHOT_RECORDS: "50", GOONDAN_CLUSTER_SNAPSHOT_BYTES: "" }),
    ).toEqual({ records: 50, bytes: DEFAULT_COMPACTION.bytes });
    for (const raw of ["0", "1.5", "lots"])
      expect(() => readCompactionSettings({ GOONDAN_CLUSTER_SNAPSHOT_BYTES: raw })).toThrow(
        expect.objectContaining({ code: "E_CLUSTER_CONFIG_INVALID" }),
      );
  });
});
