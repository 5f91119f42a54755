/**
 * Orchestrator throughput and footprint with real agent children on the loopback LLM (no network):
 *
 *   bun bench/throughput.ts [--requests N] [--idle N]
 *
 * 1. requests/s: N events spread over 10 agents (one instance each), all submitted at once, each a
 *    one-step turn answered at once: by the loopback server (openai-compatible over 127.0.0.1; also with a
 *    streaming Model, whose text goes to the orchestrator as it comes, with a caller streaming each reply), by the
 *    `replay` model on a one-line cassette written here (no HTTP at all), with the state root on the ordinary
 *    disk (ext4 here, fsync on) and on /dev/shm; the same through minimal protocol children (the orchestrator's
 *    own ceiling, no agent machinery). Each line says how many store commits (syncs) a turn cost.
 * 2. crash-to-ready: kill -9 an idle agent child and time until its replacement is ready, against the cold
 *    spawn-to-ready of a new instance measured in the same run.
 * 3. idle footprint: N idle agent instances alive at once, total and per-child PSS from /proc/<pid>/smaps_rollup.
 * 4. the cost of tracing: requests/s on the replay model (state on /dev/shm) with the OTLP trace export on
 *    (http/protobuf to a loopback receiver that only counts what it gets, flushing every 200 ms) against off,
 *    alternated three times each (`--tracing-only` runs just this).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../src/config/load-bundle.ts";
import { Orchestrator } from "../src/orchestrator/orchestrator.ts";
import { bunProcessSpawner } from "../src/supervision/process-spawner.ts";
import { startLoopbackLlm } from "../test/helpers/loopback-llm.ts";
import { testBundle } from "../test/fixtures/orchestrator/test-bundle.ts";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";
import { traceExportSettings } from "../src/observability/otel-settings.ts";
import { startTraceExport } from "../src/observability/trace-export.ts";
import { silentLogger } from "../src/shared/logger.ts";

const argv = process.argv.slice(2);
const REQUESTS = Number(flag("requests", "500"));
const IDLE = Number(flag("idle", "100"));
const TRACING_ONLY = argv.includes("--tracing-only");
const AGENTS = Array.from({ length: 10 }, (_, i) => `agent-${i}`);
const ECHO_CHILD = new URL("../test/fixtures/orchestrator/echo-child.ts", import.meta.url).pathname;

/** One cassette line that answers any user message with "ok" (a line matching anything is reused). */
const CASSETTE_LINE = {
  v: 1,
  request: { lastRole: "user" },
  reply: { content: [{ type: "text", text: "ok" }], finishReason: "stop", usage: { input: 1, output: 1 } },
};

/** A bundle of the 10 agents on `model`: the loopback server's URL, or `replay` (cassette written alongside). */
function writeBundle(model: { endpoint: string; streaming?: boolean } | "replay"): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-throughput-"));
  if (model === "replay") writeFileSync(join(dir, "bench.jsonl"), `${JSON.stringify(CASSETTE_LINE)}\n`);
  const spec =
    model === "replay"
      ? "{ provider: replay, model: bench, options: { cassette: ./bench.jsonl } }"
      : `{ provider: openai-compatible, model: m, endpoint: "${model.endpoint}", apiKey: { value: bench }${model.streaming === true ? ", options: { stream: true }" : ""} }`;
  const docs = [
    `apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: loopback }\nspec: ${spec}`,
    ...AGENTS.map(
      (name) =>
        `apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: ${name} }\nspec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: "You are ${name}." } }`,
    ),
    `apiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: bench }\nspec:\n  entryAgent: Agent/${AGENTS[0]}\n  agents: [${AGENTS.map((name) => `Agent/${name}`).join(", ")}]\n  policy: { lifecycle: { maxInstances: ${Math.max(IDLE + 16, 64)}, idleSeconds: 3600 }, shutdown: { gracePeriodSeconds: 5 } }`,
  ];
  writeFileSync(join(dir, "goondan.yaml"), `${docs.join("\n---\n")}\n`);
  return dir;
}

const pssKb = (pid: number): number => {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
};

async function until(probe: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!probe()) {
    if (performance.now() > deadline) throw new Error("timed out");
    await Bun.sleep(1);
  }
}

/** Syncs (store commits) so far, when the store is the embedded one. */
const commitsOf = (orchestrator: Orchestrator): number => (orchestrator.store as { commits?: number }).commits ?? 0;

/** `watch`: every submitter also takes the turn's progress (a streamed reply's text), as an HTTP stream would. */
async function requestsPerSecond(
  orchestrator: Orchestrator,
  count: number,
  options: { watch?: boolean } = {},
): Promise<{ rps: number; syncsPerTurn: number }> {
  let deltas = 0;
  const onProgress = options.watch === true ? { onProgress: () => void (deltas += 1) } : {};
  // Warm-up: every agent's child up and through one turn.
  await Promise.all(AGENTS.map((agent) => orchestrator.submit({ input: "warm up", agent }).outcome));
  const commitsBefore = commitsOf(orchestrator);
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from(
      { length: count },
      (_, i) => orchestrator.submit({ input: `request ${i}`, agent: AGENTS[i % AGENTS.length], ...onProgress }).outcome,
    ),
  );
  if (options.watch === true && deltas === 0)
    console.log("  (no progress reached the callers: is the Model streaming?)");
  const seconds = (performance.now() - started) / 1000;
  const failed = outcomes.filter((outcome) => outcome.status !== "ok").length;
  if (failed > 0) console.log(`  (${failed} turns failed)`);
  return { rps: count / seconds, syncsPerTurn: (commitsOf(orchestrator) - commitsBefore) / count };
}

const line = (label: string, result: { rps: number; syncsPerTurn: number }, note: string) =>
  console.log(
    `${label.padEnd(50)}${result.rps.toFixed(0).padStart(7)}  (${note}; ${result.syncsPerTurn.toFixed(2)} syncs per turn)`,
  );

/** Requests/s with the OTLP export on and off, alternated; the receiver only counts requests and bytes. */
async function tracingCost(): Promise<void> {
  let requests = 0;
  let bytes = 0;
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      bytes += (await request.arrayBuffer()).byteLength;
      requests += 1;
      return new Response(new Uint8Array(), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
  const settings = traceExportSettings({
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
    OTEL_BSP_SCHEDULE_DELAY: "200",
  });
  if (!settings) throw new Error("no trace settings");
  const replayDir = writeBundle("replay");
  const spawner = bunProcessSpawner({ output: "ignore", env: { ...process.env, GOONDAN_LOG_LEVEL: "warn" } });
  const results: Record<"off" | "on", number[]> = { off: [], on: [] };
  try {
    for (let round = 0; round < 3; round++) {
      for (const mode of ["off", "on"] as const) {
        const root = mkdtempSync(join("/dev/shm", "goondan-throughput-tracing-"));
        const orchestrator = new Orchestrator({ bundle: await loadBundleOrThrow(replayDir), stateRoot: root, spawner });
        const traces =
          mode === "on" ? await startTraceExport({ settings, swarm: "bench", logger: silentLogger() }) : undefined;
        if (traces) orchestrator.onRuntimeEvents((rows) => traces.observe(rows.map((row) => row.event)));
        try {
          await orchestrator.start();
          results[mode].push((await requestsPerSecond(orchestrator, REQUESTS)).rps);
          await traces?.flush();
        } finally {
          await orchestrator.shutdown({ reason: "bench", gracePeriodMs: 1000 });
          await traces?.shutdown();
          rmSync(root, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await receiver.stop(true);
    rmSync(replayDir, { recursive: true, force: true });
  }
  const median = (values: number[]) => percentile(values, 50);
  const [off, on] = [median(results.off), median(results.on)];
  console.log(
    `requests/s, replay model on /dev/shm, tracing off      ${off.toFixed(0).padStart(7)}  (median of ${results.off.map((value) => value.toFixed(0)).join(", ")})`,
  );
  console.log(
    `requests/s, the same with OTLP export (http/protobuf)  ${on.toFixed(0).padStart(7)}  (median of ${results.on.map((value) => value.toFixed(0)).join(", ")}; ${(on / off).toFixed(2)}x off; ${requests} exports, ${(bytes / 1024).toFixed(0)} KiB sent)`,
  );
}

async function main(): Promise<void> {
  console.log(`throughput (bun ${Bun.version}, ${navigator.hardwareConcurrency} cpus)\n`);
  if (TRACING_ONLY) return tracingCost();
  const llm = await startLoopbackLlm({ fallback: { text: "ok" } });
  const dir = writeBundle({ endpoint: llm.url });
  const replayDir = writeBundle("replay");
  const streamingDir = writeBundle({ endpoint: llm.url, streaming: true });
  const streamingRoot = mkdtempSync(join(tmpdir(), "goondan-throughput-streaming-"));
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-throughput-state-"));
  const replayRoot = mkdtempSync(join(tmpdir(), "goondan-throughput-replay-"));
  const shmRoot = mkdtempSync(join("/dev/shm", "goondan-throughput-replay-"));
  const echoRoot = mkdtempSync(join(tmpdir(), "goondan-throughput-echo-"));
  const spawner = bunProcessSpawner({ output: "ignore", env: { ...process.env, GOONDAN_LOG_LEVEL: "warn" } });
  const orchestrator = new Orchestrator({ bundle: await loadBundleOrThrow(dir), stateRoot, spawner });
  const streaming = new Orchestrator({
    bundle: await loadBundleOrThrow(streamingDir),
    stateRoot: streamingRoot,
    spawner,
  });
  const replay = new Orchestrator({ bundle: await loadBundleOrThrow(replayDir), stateRoot: replayRoot, spawner });
  const shm = new Orchestrator({ bundle: await loadBundleOrThrow(replayDir), stateRoot: shmRoot, spawner });
  const echo = new Orchestrator({
    bundle: testBundle({ agents: AGENTS, policy: { lifecycle: { maxInstances: 64 } } }),
    stateRoot: echoRoot,
    spawner: bunProcessSpawner({ entryScript: ECHO_CHILD, output: "ignore" }),
  });
  try {
    line(
      "requests/s, 10 real agents on the loopback LLM",
      await requestsPerSecond(orchestrator, REQUESTS),
      `${REQUESTS} one-step turns, state on disk`,
    );
    line(
      "requests/s, the same with a streaming Model",
      await requestsPerSecond(streaming, REQUESTS),
      `${REQUESTS} one-step turns, nobody takes the text`,
    );
    line(
      "requests/s, streaming Model, every caller streaming",
      await requestsPerSecond(streaming, REQUESTS, { watch: true }),
      `${REQUESTS} one-step turns, text relayed to each caller`,
    );
    line(
      "requests/s, the loopback LLM again (not streaming)",
      await requestsPerSecond(orchestrator, REQUESTS),
      `${REQUESTS} one-step turns: the drift of this run`,
    );
    await streaming.shutdown({ reason: "bench", gracePeriodMs: 1000 });
    line(
      "requests/s, 10 real agents on the replay model",
      await requestsPerSecond(replay, REQUESTS),
      `${REQUESTS} one-step turns from a one-line cassette, state on disk`,
    );
    await replay.shutdown({ reason: "bench", gracePeriodMs: 1000 });
    line(
      "requests/s, the same with the state on /dev/shm",
      await requestsPerSecond(shm, REQUESTS),
      `${REQUESTS} turns, state on tmpfs`,
    );
    await shm.shutdown({ reason: "bench", gracePeriodMs: 1000 });
    line(
      "requests/s, 10 minimal protocol children",
      await requestsPerSecond(echo, REQUESTS * 4),
      `${REQUESTS * 4} turns: the routing ceiling`,
    );
    await echo.shutdown({ reason: "bench", gracePeriodMs: 1000 });

    // Crash-to-ready against cold spawn-to-ready.
    const cold: number[] = [];
    const crash: number[] = [];
    for (let i = 0; i < 10; i++) {
      const instanceKey = `crash-${i}`;
      const started = performance.now();
      await orchestrator.submit({ input: "hi", agent: AGENTS[0], instanceKey }).outcome;
      const row = () => orchestrator.processes().find((candidate) => candidate.instanceKey === instanceKey);
      await until(() => row()?.status === "idle");
      cold.push(performance.now() - started);
      const pid = row()?.pid as number;
      const killedAt = performance.now();
      process.kill(pid, "SIGKILL");
      await until(() => row()?.status === "idle" && row()?.pid !== pid);
      crash.push(performance.now() - killedAt);
    }
    const median = (values: number[]) => percentile(values, 50);
    console.log(`cold first event → turn done (spawn+ready+turn)  ${median(cold).toFixed(0).padStart(7)} ms median`);
    console.log(
      `kill -9 → replacement ready (crash-to-ready)     ${median(crash).toFixed(0).padStart(7)} ms median (${(median(crash) / median(cold)).toFixed(2)}x the cold path)`,
    );

    await tracingCost();

    // Idle footprint (skipped with --idle 0).
    if (IDLE === 0) return;
    const started = performance.now();
    await Promise.all(
      Array.from(
        { length: IDLE },
        (_, i) =>
          orchestrator.submit({ input: "hello", agent: AGENTS[i % AGENTS.length], instanceKey: `idle-${i}` }).outcome,
      ),
    );
    const idleRows = orchestrator.processes().filter((row) => row.instanceKey.startsWith("idle-") && row.pid !== null);
    const total = idleRows.reduce((sum, row) => sum + pssKb(row.pid as number), 0);
    console.log(
      `${String(idleRows.length).padStart(3)} idle agent instances alive                   total PSS ${(total / 1024).toFixed(0)} MiB, ${(total / 1024 / idleRows.length).toFixed(1)} MiB per child; orchestrator PSS ${(pssKb(process.pid) / 1024).toFixed(0)} MiB (started in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  } finally {
    await orchestrator.shutdown({ reason: "bench over", gracePeriodMs: 2000 });
    await llm.close();
    await replay.shutdown({ reason: "bench over", gracePeriodMs: 1000 });
    await shm.shutdown({ reason: "bench over", gracePeriodMs: 1000 });
    await streaming.shutdown({ reason: "bench over", gracePeriodMs: 1000 });
    for (const path of [dir, replayDir, streamingDir, stateRoot, replayRoot, streamingRoot, shmRoot, echoRoot])
      rmSync(path, { recursive: true, force: true });
  }
}

await main();
