/**
 * The NATS floors the cluster's figures are compared with, on this machine and the local NATS server:
 *
 *   bun bench/nats-floor.ts [--iterations N] [--url nats://127.0.0.1:4222] [--gaps 0,1,5,20,60]
 *
 * 1. core request/reply round trip between two processes (this one and a Bun child that answers on a subject,
 *    each with its own connection): the floor of a cross-node `agents__request`; back to back, then (`--gaps`)
 *    one round trip after each idle gap of that many ms, 200 per gap: what waking idle processes costs (the NATS
 *    server and the responder sleep in between, as the nodes of a cluster do between the crossings of a job);
 * 2. JetStream publish → ack on a file-storage work-queue stream with a Nats-Msg-Id (as the intake accepts an
 *    event): the floor of a cluster `202`;
 * 3. KV update at a revision on a bucket with a TTL (as a lease renew).
 * Prints p50/p99 of each after a warm-up. Streams and buckets it makes are deleted at the end.
 * This file is also the responder child's entry script (`--responder SUBJECT URL`).
 */
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";

if (process.argv.includes("--responder")) {
  const nc = await connect({ servers: flag("url", "nats://127.0.0.1:4222") });
  nc.subscribe(flag("responder", ""), {
    callback: (_error, message) => {
      message.respond(message.data);
    },
  });
  await nc.flush();
  await nc.closed();
  process.exit(0);
}

const URL_ = flag("url", "nats://127.0.0.1:4222");
const ITERATIONS = Number(flag("iterations", "2000"));
const WARMUP = Math.min(200, ITERATIONS);
const run = randomBytes(4).toString("hex");

let nc;
try {
  nc = await connect({ servers: URL_, timeout: 2000 });
} catch (error) {
  console.error(`no NATS server answers at ${URL_}: ${(error as Error).message}`);
  process.exit(1);
}
const report = (label: string, samples: number[]) =>
  console.log(
    `  ${label.padEnd(44)} p50 ${percentile(samples, 50).toFixed(3)} ms   p99 ${percentile(samples, 99).toFixed(3)} ms   (n=${samples.length})`,
  );

async function time(iterations: number, once: (index: number) => Promise<unknown>): Promise<number[]> {
  for (let index = 0; index < WARMUP; index++) await once(-index - 1);
  const samples: number[] = [];
  for (let index = 0; index < iterations; index++) {
    const started = performance.now();
    await once(index);
    samples.push(performance.now() - started);
  }
  return samples;
}

console.log(
  `nats-floor: ${URL_} (server ${nc.info?.version ?? "?"}), ${ITERATIONS} iterations after ${WARMUP} warm-up`,
);

// 1. Core request/reply to another process.
const subject = `bench.floor.${run}`;
const child = Bun.spawn([process.execPath, new URL(import.meta.url).pathname, "--responder", subject, "--url", URL_], {
  stdio: ["ignore", "inherit", "inherit"],
});
// Ready once it answers (until then: no responders).
for (let attempt = 0; ; attempt++) {
  try {
    await nc.request(subject, "ping", { timeout: 500 });
    break;
  } catch {
    if (attempt === 200) throw new Error("the responder child did not start");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const payload = JSON.stringify({ type: "agent.request", input: "x".repeat(200), callChain: ["a"], metadata: {} });
report(
  "core request/reply, two processes",
  await time(ITERATIONS, () => nc.request(subject, payload, { timeout: 5000 })),
);
for (const gap of flag("gaps", "0,1,5,20,60").split(",").map(Number)) {
  const samples: number[] = [];
  for (let index = 0; index < 200; index++) {
    await new Promise((resolve) => setTimeout(resolve, gap));
    const started = performance.now();
    await nc.request(subject, payload, { timeout: 5000 });
    samples.push(performance.now() - started);
  }
  report(`  one after ${gap} ms idle`, samples);
}
child.kill();
await child.exited;

// 2. JetStream publish → ack, file storage, work queue, deduplicated by id.
const jsm = await jetstreamManager(nc);
const js = jetstream(nc);
const stream = `BENCH_FLOOR_${run}`;
await jsm.streams.add({
  name: stream,
  subjects: [`bench.in.${run}.>`],
  retention: RetentionPolicy.Workqueue,
  storage: StorageType.File,
});
try {
  report(
    "JetStream publish-ack (file, Nats-Msg-Id)",
    await time(Math.ceil(ITERATIONS / 2), (index) =>
      js.publish(`bench.in.${run}.coder.k`, payload, { msgID: `evt_${run}_${index}` }),
    ),
  );
} finally {
  await jsm.streams.delete(stream);
}

// 3. KV update at a revision (a lease renew).
const kv = await new Kvm(js).create(`bench_floor_${run}`, { ttl: 10_000 });
try {
  let revision = await kv.create("lease", "{}");
  report(
    "KV update at revision (lease renew)",
    await time(Math.ceil(ITERATIONS / 2), async () => (revision = await kv.update("lease", "{}", revision))),
  );
} finally {
  await kv.destroy();
}
await nc.drain();
