/**
 * The cluster's answer path alone, without agents or an LLM: how long from accepting an event to having its
 * answer on the accepting node, when the instance runs on the other node and when it runs on the same one.
 *
 *   bun bench/cross-node-answer.ts [--pairs N]
 *
 * Two real node processes (this script as `--node owner|origin`), each a ClusterNode with its embedded store, on
 * the local NATS, with a stand-in for the orchestrator that "runs" each event it is handed by storing its accept
 * and its answering commit at once (the two state-log appends of a turn) and answering. The origin accepts events
 * for instances placed on either node, interleaved, and times accept → answer here (its own answer once durable;
 * a remote one when it arrives); between them, a raw NATS request/reply to the owner process (the floor). The
 * difference of the two p50s is what the crossing costs on this path; bench/cluster.ts measures the same crossing
 * inside whole delegated jobs, where the turns' own noise is much larger.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClusterNode } from "../src/cluster/node/node.ts";
import { readClusterSettings } from "../src/cluster/nats/settings.ts";
import type { AgentEvent } from "../src/protocol/agent-event.ts";
import type { TurnOutcome } from "../src/protocol/turn-outcome.ts";
import { silentLogger } from "../src/shared/logger.ts";
import { SqliteStore } from "../src/store/sqlite/sqlite-store.ts";
import { NATS_URL, natsAvailable, removeSwarmAfter, testSwarm } from "../test/helpers/nats.ts";
import { flag } from "./support/flag.ts";
import { p50Difference } from "./support/p50-difference.ts";
import { percentile } from "./support/percentile.ts";
import { NO_READS } from "../test/cluster/node-fixture.ts";

const PAIRS = Number(flag("pairs", "1000"));
const KEYS = 16;
const role = flag("node", "");

if (role !== "") await runNode(role, flag("swarm", ""), flag("dir", ""));
else await main();

async function runNode(name: string, swarm: string, dir: string): Promise<void> {
  const settings = readClusterSettings({ url: NATS_URL, node: name, env: {} });
  if (settings === undefined) throw new Error("no cluster settings");
  const node = await ClusterNode.join({
    settings,
    swarm,
    bundleDir: join(dir, "bundle"),
    maxProcesses: 64,
    logger: silentLogger(),
    ttlMs: 10_000,
  });
  const store = node.store(new SqliteStore(join(dir, `${name}.db`)));
  /** Waiting for an event's answer: told whether it ran here. */
  const answers = new Map<string, (here: boolean) => void>();
  const answer = (event: AgentEvent): TurnOutcome => ({
    status: "ok",
    agent: event.agent,
    instanceKey: event.instanceKey,
    eventId: event.id,
    turnId: `turn_${event.id}`,
    response: "done",
    finishReason: "stop",
  });
  await node.attach({
    // A turn that ends at once: its accept and its answering commit in the state log, then answered.
    acceptHere: async (event) => {
      await store.accept(swarm, event, Date.now());
      const outcome = answer(event);
      await store.commit({ swarm, agent: event.agent, instanceKey: event.instanceKey }, {}, outcome);
      answers.get(event.id)?.(true);
      node.answered(event, outcome);
      return {};
    },
    release: async () => undefined,
    answeredElsewhere: (event) => answers.get(event.id)?.(false),
    ...NO_READS,
  });
  // The floor's responder, on this process's own connection.
  node.connection.nc.subscribe(`bench.${swarm}.floor`, {
    callback: (_error, message) => void message.respond(message.data),
  });
  await node.connection.nc.flush();
  if (name === "owner") {
    console.log(JSON.stringify({ ready: true }));
    await new Promise(() => undefined);
  }
  let sequence = 0;
  /** Accepts one event for worker/`key` and resolves with where it ran and how long its answer took to be here. */
  const ask = async (key: string): Promise<{ here: boolean; ms: number }> => {
    const event = {
      id: `evt_${process.pid}_${sequence++}`,
      type: "agent.request",
      input: "x",
      agent: "worker",
      instanceKey: key,
      source: { kind: "agent", name: "coordinator", instanceKey: "c" },
      traceId: "t",
      callChain: ["coordinator"],
      metadata: {},
      createdAt: new Date().toISOString(),
    } as AgentEvent;
    const started = performance.now();
    const answered = new Promise<boolean>((resolve) => answers.set(event.id, resolve));
    await node.accept(event);
    const here = await answered;
    const ms = performance.now() - started;
    answers.delete(event.id);
    return { here, ms };
  };
  // Place the keys: whichever ran here (its accept is in this node's store) is a same-node key.
  const here: string[] = [];
  const there: string[] = [];
  for (let k = 0; k < KEYS; k++)
    for (let warm = 0; warm < 5; warm++) if ((await ask(`k-${k}`)).here && warm === 0) here.push(`k-${k}`);
  for (let k = 0; k < KEYS; k++) if (!here.includes(`k-${k}`)) there.push(`k-${k}`);
  const same: number[] = [];
  const cross: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const a = async () => cross.push((await ask(there[i % there.length] as string)).ms);
    const b = async () => same.push((await ask(here[i % here.length] as string)).ms);
    if (i % 2 === 0) await a().then(b);
    else await b().then(a);
    for (let f = 0; f < 2; f++) {
      const started = performance.now();
      await node.connection.nc.request(`bench.${swarm}.floor`, "x", { timeout: 5000 });
      floor.push(performance.now() - started);
    }
  }
  console.log(JSON.stringify({ here: here.length, there: there.length, same, cross, floor }));
  await node.stop();
  process.exit(0);
}

async function main(): Promise<void> {
  if (!natsAvailable) {
    console.error(`no NATS server at ${NATS_URL}`);
    process.exit(1);
  }
  const cleanups: Array<() => unknown> = [];
  const swarm = testSwarm("xanswer");
  removeSwarmAfter((cleanup) => void cleanups.push(cleanup), swarm);
  const dir = mkdtempSync(join(tmpdir(), "goondan-xanswer-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "bundle"));
  writeFileSync(join(dir, "bundle", "goondan.yaml"), "# one bundle for both nodes\n");
  const spawn = (name: string) =>
    Bun.spawn(
      [
        process.execPath,
        new URL(import.meta.url).pathname,
        "--node",
        name,
        "--swarm",
        swarm,
        "--dir",
        dir,
        "--pairs",
        String(PAIRS),
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
  const owner = spawn("owner");
  try {
    const reader = owner.stdout.getReader();
    await reader.read();
    const origin = spawn("origin");
    const text = await new Response(origin.stdout).text();
    const result = JSON.parse(text.trim().split("\n").at(-1) as string) as {
      here: number;
      there: number;
      same: number[];
      cross: number[];
      floor: number[];
    };
    const floor50 = percentile(result.floor, 50);
    const line = (label: string, samples: number[]) =>
      console.log(
        `  ${label.padEnd(48)} p50 ${percentile(samples, 50).toFixed(3).padStart(7)} ms  p99 ${percentile(samples, 99).toFixed(3).padStart(8)} ms  (n=${samples.length})`,
      );
    console.log(
      `cross-node answer path: ${PAIRS} interleaved pairs, instances on the origin ${result.here}/${KEYS}, on the other node ${result.there}/${KEYS}`,
    );
    line("floor: NATS request/reply, origin → owner process", result.floor);
    line("accept → answer here, instance on the same node", result.same);
    line("accept → answer here, instance on the other node", result.cross);
    const spread = p50Difference(result.cross, result.same, 5);
    console.log(
      `  other − same node: ${spread.all.toFixed(3)} ms = ${(spread.all / floor50).toFixed(2)}x the floor; 5 slices ${spread.slices.map((value) => (value / floor50).toFixed(2)).join(", ")}x`,
    );
  } finally {
    owner.kill();
    await owner.exited;
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
