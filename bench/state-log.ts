/**
 * What one durable state write of a cluster node costs (src/store/nats/replicated-store.ts: the embedded store plus the
 * instance's JetStream state log), against a JetStream publish → ack measured in the same run, on the local NATS and
 * a state root on disk (default a temporary directory under /tmp):
 *
 *   bun bench/state-log.ts [--writes N] [--state-root DIR]
 *
 * 1. floor: a publish → ack of the same record on the state stream, without the sequence check;
 * 2. one commit of an owned instance, one after the other (as the step commits a turn waits on), three ways, taken
 *    in turn so that the machine's load weighs on each alike:
 *    - "sync, then append": the embedded store's synced write, then the append (what a node did before 2026-11-25);
 *    - "no sync, then append": the embedded write without its sync, then the append;
 *    - "ReplicatedStore": what a node does: the embedded write without its sync and the append started together;
 * 3. grouping: 16 instances, each with 8 writes made at once (a busy node): messages published per write and the
 *    time until all are durable.
 * 4. compaction: two instances given the same long run of turns (--turns, default 2000: each an accepted event and a
 *    commit of two messages with its answer), one on a log that never compacts, one with the default thresholds:
 *    a turn's write p50 on each, the log each leaves (messages, bytes), and a takeover's replay time of each (the
 *    median of 3 takes into a fresh embedded store); the ratio compacted / whole.
 * The stream and bucket it makes are deleted at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clusterNames } from "../src/cluster/nats/names.ts";
import { connectCluster } from "../src/cluster/nats/connection.ts";
import { readClusterSettings } from "../src/cluster/nats/settings.ts";
import { InstanceStateLog, type StateRecord } from "../src/store/nats/instance-state-log.ts";
import { DEFAULT_COMPACTION } from "../src/store/nats/state-log-snapshot.ts";
import { DeliverPolicy } from "@nats-io/jetstream";
import { LeaseTable, type Lease } from "../src/cluster/lease/lease-table.ts";
import { ReplicatedStore } from "../src/store/nats/replicated-store.ts";
import type { InstanceCommit } from "../src/protocol/instance-state.ts";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import type { InstanceRef } from "../src/store/store.ts";
import { NATS_URL, natsAvailable, removeSwarmAfter, testSwarm } from "../test/helpers/nats.ts";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";

const WRITES = Number(flag("writes", "600"));
const TURNS = Number(flag("turns", "2000"));
if (!natsAvailable) {
  console.error(`no NATS server at ${NATS_URL}`);
  process.exit(1);
}

const cleanups: Array<() => unknown> = [];
let subjectSize: (subject: string) => Promise<{ messages: number; bytes: number }>;
const line = (label: string, samples: number[], floor?: number) =>
  console.log(
    `  ${label.padEnd(36)} p50 ${percentile(samples, 50).toFixed(3)} ms   p99 ${percentile(samples, 99).toFixed(3)} ms${floor ? `   p50 = ${(percentile(samples, 50) / floor).toFixed(1)}x the floor` : ""}   (n=${samples.length})`,
  );

/** A step commit as a turn makes one: the assistant's message with one tool call. */
function stepCommit(index: number): InstanceCommit {
  const message = {
    id: `msg_${index}`,
    data: {
      role: "assistant",
      content: [
        {
          type: "tool-call",
          toolCallId: `call_${index}`,
          toolName: "agents__request",
          input: { target: "worker", input: `job-${index}` },
        },
      ],
    },
    metadata: { turnId: `turn_${index}`, stepIndex: 0 },
    createdAt: new Date().toISOString(),
    source: { type: "assistant", name: "coordinator" },
  };
  return { changes: [{ type: "append", message } as never] };
}

/** One turn of a long conversation: the event accepted, then one commit of the user's and the assistant's messages with the answer. */
async function longTurn(store: ReplicatedStore, ref: InstanceRef, index: number): Promise<void> {
  const event = {
    id: `evt_${ref.instanceKey}_${index}`,
    type: "user.input",
    input: `job ${index}: please look at file src/module-${index}.ts`,
    agent: ref.agent,
    instanceKey: ref.instanceKey,
    source: { kind: "user" as const, name: "bench" },
    traceId: `trace_${index}`,
    callChain: [],
    metadata: {},
    createdAt: new Date().toISOString(),
  };
  await store.accept(ref.swarm, event, Date.now());
  const message = (id: string, role: string, content: string) => ({
    id,
    data: { role, content },
    metadata: { turnId: `turn_${index}` },
    createdAt: new Date().toISOString(),
    source: { type: role },
  });
  const commit = {
    changes: [
      { type: "append", message: message(`u_${index}`, "user", event.input) },
      {
        type: "append",
        message: message(
          `a_${index}`,
          "assistant",
          `Looked at src/module-${index}.ts: it exports ${index % 7} functions and needs no change.`,
        ),
      },
    ],
  } as unknown as InstanceCommit;
  await store.commit(ref, commit, {
    status: "ok",
    agent: ref.agent,
    instanceKey: ref.instanceKey,
    eventId: event.id,
    turnId: `turn_${index}`,
    response: `done ${index}`,
    finishReason: "stop",
  });
}

const swarm = testSwarm("bench-state");
removeSwarmAfter((cleanup) => void cleanups.push(cleanup), swarm);
const stateRoot = flag("state-root", mkdtempSync(join(tmpdir(), "goondan-state-log-")));
cleanups.push(() => rmSync(stateRoot, { recursive: true, force: true }));
try {
  const settings = readClusterSettings({ url: NATS_URL, node: "bench", env: {} });
  if (settings === undefined) throw new Error("no cluster settings");
  const connection = await connectCluster(settings);
  cleanups.push(() => connection.stop());
  const names = clusterNames(swarm);
  const local = new SqliteStore(join(stateRoot, "goondan.db"));
  cleanups.push(() => local.close());
  const log = await InstanceStateLog.open({ connection, names });
  const store = new ReplicatedStore(local, log);
  subjectSize = async (subject) => {
    const consumer = await connection.js.consumers.get(names.stateStream, {
      filter_subjects: subject,
      deliver_policy: DeliverPolicy.All,
    });
    const messages = await consumer.consume();
    let count = 0;
    let bytes = 0;
    for await (const message of messages) {
      count += 1;
      bytes += message.data.length;
      if (message.info.pending === 0) break;
    }
    messages.stop();
    return { messages: count, bytes };
  };
  const leases = await LeaseTable.open({ connection, bucket: names.leaseBucket, ttlMs: 60_000 });
  const own = async (agent: string, instanceKey: string): Promise<InstanceRef> => {
    const ref = { swarm, agent, instanceKey };
    const claimed = await leases.claim(names.instanceLeaseKey(agent, instanceKey), "bench");
    if (claimed.status !== "claimed" || !(await log.take(ref, claimed.lease, local)).taken)
      throw new Error(`could not own ${agent}/${instanceKey}`);
    return ref;
  };
  console.log(`state-log bench: ${WRITES} writes per way, NATS at ${NATS_URL}, state root ${stateRoot}`);

  const floorSubject = `${names.stateSubject("floor", "x")}`;
  const ways = {
    floor: async (index: number) =>
      void (await connection.js.publish(floorSubject, JSON.stringify({ op: "commit", commit: stepCommit(index) }))),
    syncThenAppend: async (index: number, ref: InstanceRef) => {
      const commit = stepCommit(index);
      await local.commit(ref, commit, undefined, { sync: true });
      await log.append(ref, { op: "commit", commit } satisfies StateRecord);
    },
    noSyncThenAppend: async (index: number, ref: InstanceRef) => {
      const commit = stepCommit(index);
      await local.commit(ref, commit, undefined, { sync: false });
      await log.append(ref, { op: "commit", commit } satisfies StateRecord);
    },
    replicated: (index: number, ref: InstanceRef) => store.commit(ref, stepCommit(index)),
  };
  const refs = {
    floor: { swarm, agent: "floor", instanceKey: "x" },
    syncThenAppend: await own("a", "sync"),
    noSyncThenAppend: await own("a", "nosync"),
    replicated: await own("a", "replicated"),
  };
  const samples: Record<keyof typeof ways, number[]> = {
    floor: [],
    syncThenAppend: [],
    noSyncThenAppend: [],
    replicated: [],
  };
  for (let index = -50; index < WRITES; index++) {
    for (const way of Object.keys(ways) as Array<keyof typeof ways>) {
      const started = performance.now();
      await ways[way](index, refs[way]);
      if (index >= 0) samples[way].push(performance.now() - started);
    }
  }
  const floor = percentile(samples.floor, 50);
  console.log("\none write, one after the other");
  line("floor: JetStream publish → ack", samples.floor);
  line("sync, then append (before)", samples.syncThenAppend, floor);
  line("no sync, then append", samples.noSyncThenAppend, floor);
  line("ReplicatedStore (now)", samples.replicated, floor);

  const busy = await Promise.all(Array.from({ length: 16 }, (_, i) => own("busy", `i-${i}`)));
  const before = (await connection.jsm.streams.info(names.stateStream)).state.messages;
  const started = performance.now();
  await Promise.all(busy.flatMap((ref) => Array.from({ length: 8 }, (_, i) => store.commit(ref, stepCommit(i)))));
  const elapsed = performance.now() - started;
  const messages = (await connection.jsm.streams.info(names.stateStream)).state.messages - before;
  console.log(
    `\n16 instances × 8 writes at once: ${messages} messages for 128 writes (${(messages / 128).toFixed(2)} per write), all durable in ${elapsed.toFixed(1)} ms`,
  );

  // 4. A long instance, with and without compaction.
  const whole = await InstanceStateLog.open({
    connection,
    names,
    compaction: { records: Number.MAX_SAFE_INTEGER, bytes: Number.MAX_SAFE_INTEGER },
  });
  const compacted = await InstanceStateLog.open({ connection, names, compaction: DEFAULT_COMPACTION });
  const sides = {
    whole: {
      log: whole,
      store: new ReplicatedStore(local, whole),
      ref: { swarm, agent: "long", instanceKey: "whole" },
      lease: undefined as Lease | undefined,
      writes: [] as number[],
    },
    compacted: {
      log: compacted,
      store: new ReplicatedStore(local, compacted),
      ref: { swarm, agent: "long", instanceKey: "compacted" },
      lease: undefined as Lease | undefined,
      writes: [] as number[],
    },
  };
  for (const side of Object.values(sides)) {
    const claimed = await leases.claim(names.instanceLeaseKey(side.ref.agent, side.ref.instanceKey), "bench");
    if (claimed.status !== "claimed" || !(await side.log.take(side.ref, claimed.lease, local)).taken)
      throw new Error("could not own the long instance");
    side.lease = claimed.lease;
  }
  for (let index = 0; index < TURNS; index++) {
    for (const side of Object.values(sides)) {
      const started = performance.now();
      await longTurn(side.store, side.ref, index);
      side.writes.push(performance.now() - started);
    }
  }
  const replayInto = new SqliteStore(join(stateRoot, "replay.db"));
  cleanups.push(() => replayInto.close());
  const figures: Record<string, { messages: number; bytes: number; replayMs: number; records: number }> = {};
  for (const [name, side] of Object.entries(sides)) {
    await Bun.sleep(500); // a compaction on its way (its purge) lands
    side.log.drop(side.ref);
    await leases.release(side.lease as Lease);
    const size = await subjectSize(names.stateSubject(side.ref.agent, side.ref.instanceKey));
    const times: number[] = [];
    let records = 0;
    for (let take = 0; take < 3; take++) {
      const reader = await InstanceStateLog.open({ connection, names });
      const claimed = await leases.claim(
        names.instanceLeaseKey(side.ref.agent, side.ref.instanceKey),
        `replay-${take}`,
      );
      if (claimed.status !== "claimed") throw new Error("could not claim for a replay");
      const started = performance.now();
      const outcome = await reader.take(side.ref, claimed.lease, replayInto);
      await replayInto.settled();
      times.push(performance.now() - started);
      records = outcome.taken ? outcome.replayed : 0;
      reader.drop(side.ref);
      await leases.release(claimed.lease);
    }
    figures[name] = { ...size, replayMs: percentile(times, 50), records };
    console.log(
      `\n${TURNS} turns, ${name === "whole" ? "log never compacted" : `compacted (every ${DEFAULT_COMPACTION.records} records or ${DEFAULT_COMPACTION.bytes} bytes)`}:`,
    );
    console.log(
      `  write of a turn (accept + commit)      p50 ${percentile(side.writes, 50).toFixed(3)} ms   p99 ${percentile(side.writes, 99).toFixed(3)} ms`,
    );
    console.log(
      `  log left: ${size.messages} messages, ${(size.bytes / 1024).toFixed(0)} KiB; a takeover's replay: ${figures[name]?.replayMs.toFixed(1)} ms (median of 3, ${records} records after the snapshot${name === "whole" ? ", no snapshot" : ""})`,
    );
  }
  const [w, c] = [figures.whole, figures.compacted];
  if (w && c)
    console.log(
      `\ncompacted / whole: replay ${(c.replayMs / w.replayMs).toFixed(2)}x, messages ${(c.messages / w.messages).toFixed(3)}x, bytes ${(c.bytes / w.bytes).toFixed(2)}x`,
    );
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
