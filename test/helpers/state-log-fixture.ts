/**
 * One instance's state log on the local NATS, for the tests of src/store/nats and of what the cluster builds on it:
 * a fresh swarm (removed afterwards), a connection, its names and lease table, the instance `coder/k`, and nodes,
 * each an embedded SQLite store of its own with a state log and the ReplicatedStore over both.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clusterNames } from "../../src/cluster/nats/names.ts";
import { LeaseTable, type Lease } from "../../src/cluster/lease/lease-table.ts";
import { InstanceStateLog } from "../../src/store/nats/instance-state-log.ts";
import type { JetStreamHandle } from "../../src/store/nats/jetstream-handle.ts";
import { ReplicatedStore } from "../../src/store/nats/replicated-store.ts";
import type { CompactionSettings } from "../../src/store/nats/state-log-snapshot.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import type { InstanceRef } from "../../src/store/store.ts";
import type { Defer } from "./cleanups.ts";
import { connectTest, removeSwarmAfter, testSwarm } from "./nats.ts";

export interface StateLogNodeOptions {
  /** The JetStream handle the node's log writes through (default: the fixture's connection). */
  handle?: JetStreamHandle;
  compaction?: CompactionSettings;
  /** The node's ReplicatedStore's options (as ClusterNode.store() gives them). */
  replicated?: (parts: {
    local: SqliteStore;
    log: InstanceStateLog;
  }) => ConstructorParameters<typeof ReplicatedStore>[2];
}

export async function stateLogFixture(defer: Defer, label: string) {
  const swarm = testSwarm(label);
  removeSwarmAfter(defer, swarm);
  const connection = await connectTest(defer);
  const names = clusterNames(swarm);
  const leases = await LeaseTable.open({ connection, bucket: names.leaseBucket });
  const ref: InstanceRef = { swarm, agent: "coder", instanceKey: "k" };
  const subject = names.stateSubject(ref.agent, ref.instanceKey);
  /** The instance's lease, claimed by `owner` (throws when another holds it). */
  const claim = async (owner: string): Promise<Lease> => {
    const outcome = await leases.claim(names.instanceLeaseKey(ref.agent, ref.instanceKey), owner);
    if (outcome.status !== "claimed") throw new Error(`${owner} could not claim`);
    return outcome.lease;
  };
  /** One node: its embedded store in a directory of its own (removed afterwards), its log and its ReplicatedStore. */
  const node = async (options: StateLogNodeOptions = {}) => {
    const dir = mkdtempSync(join(tmpdir(), `goondan-${label}-`));
    const local = new SqliteStore(join(dir, "goondan.db"));
    defer(async () => {
      await local.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const log = await InstanceStateLog.open({
      connection: options.handle ?? connection,
      names,
      ...(options.compaction ? { compaction: options.compaction } : {}),
    });
    return { local, log, store: new ReplicatedStore(local, log, options.replicated?.({ local, log })) };
  };
  /** How many messages the instance's subject holds, and the stream's first sequence. */
  const subjectState = async () => {
    const info = await connection.jsm.streams.info(names.stateStream, { subjects_filter: subject });
    return { messages: info.state.subjects?.[subject] ?? 0, first: info.state.first_seq };
  };
  const subjectMessages = async () => (await subjectState()).messages;
  return { swarm, connection, names, leases, ref, subject, claim, node, subjectState, subjectMessages };
}
