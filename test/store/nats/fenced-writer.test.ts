import { describe, expect, it } from "bun:test";
import { StorageType } from "@nats-io/jetstream";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import { FencedWriter, LEASE_REVISION_HEADER } from "../../../src/store/nats/fenced-writer.ts";
import { LeaseTable, type Lease } from "../../../src/cluster/lease/lease-table.ts";
import { subjectToken } from "../../../src/cluster/nats/subject-token.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();

async function setup() {
  const swarm = testSwarm("fence");
  removeSwarmAfter(defer, swarm);
  const connection = await connectTest(defer);
  const names = clusterNames(swarm);
  const key = names.instanceLeaseKey("coder", "user-1");
  // A stream of per-instance state records, as the cluster store will keep them.
  const stream = `GDN_${subjectToken(swarm)}_STATE`;
  const subject = `gdn.${subjectToken(swarm)}.state.${key}`;
  await connection.jsm.streams.add({
    name: stream,
    subjects: [`gdn.${subjectToken(swarm)}.state.>`],
    storage: StorageType.Memory,
  });
  defer(async () => void (await connection.jsm.streams.delete(stream).catch(() => false)));
  const leases = await LeaseTable.open({ connection, bucket: names.leaseBucket });
  const claim = async (owner: string): Promise<Lease> => {
    const outcome = await leases.claim(key, owner);
    if (outcome.status !== "claimed") throw new Error(`${owner} could not claim`);
    return outcome.lease;
  };
  const take = async (lease: Lease) => {
    const outcome = await FencedWriter.take({ connection, stream, subject, lease });
    if (outcome.status !== "taken") throw new Error(`${lease.owner} could not take the subject`);
    return outcome.writer;
  };
  return { connection, stream, leases, claim, take, subject };
}

describe.skipIf(!natsAvailable)("FencedWriter on the local NATS", () => {
  it("refuses a stale holder's writes once the new holder took the subject, and keeps the new holder's", async () => {
    const { connection, stream, leases, claim, take, subject } = await setup();
    const leaseA = await claim("a");
    const writerA = await take(leaseA);
    expect((await writerA.append({ step: 1 })).status).toBe("written");

    // A's lease ends (it lapsed; released here to be quick) and B claims and takes the subject.
    await leases.release(leaseA);
    const leaseB = await claim("b");
    expect(leaseB.revision).toBeGreaterThan(leaseA.revision);
    const writerB = await take(leaseB);

    // A, not knowing yet, writes again: the server refuses it, now and later.
    expect(await writerA.append({ step: 2, by: "a" })).toEqual({ status: "fenced" });
    expect((await writerB.append({ step: 2, by: "b" })).status).toBe("written");
    expect(await writerA.append({ step: 3, by: "a" })).toEqual({ status: "fenced" });

    const last = await connection.jsm.streams.getMessage(stream, { last_by_subj: subject });
    expect(last?.json()).toEqual({ step: 2, by: "b" });
    expect(last?.header.get(LEASE_REVISION_HEADER)).toBe(String(leaseB.revision));
    expect((await connection.jsm.streams.info(stream)).state.messages).toBe(4); // fence A, step 1, fence B, step 2 by B
  });

  it("refuses a stale holder that tries to take the subject after a newer one did", async () => {
    const { leases, claim, take, connection, stream, subject } = await setup();
    const leaseA = await claim("a");
    await leases.release(leaseA);
    const leaseB = await claim("b");
    await take(leaseB);
    const stale = await FencedWriter.take({ connection, stream, subject, lease: leaseA });
    expect(stale).toEqual({ status: "fenced", newerRevision: leaseB.revision });
  });
});
