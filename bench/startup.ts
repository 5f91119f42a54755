/**
 * What starting goondan costs: the wall time and CPU of `goondan validate` on the bundled example, and of
 * `goondan run` on it up to its `ready` line (its HTTP API listening, before any agent process is spawned), on a new
 * state root and again on one it already ran on (a restart: the agent entry bundle is then reused), against a bare
 * Bun process (`bun -e ""`) as the floor. Every real-process test, every service restart and every `self-restart`
 * pays one of the last two.
 *
 *   bun bench/startup.ts [--runs N] [--repo DIR]
 *
 * The four are taken in turn, N times each (default 15); figures are medians. CPU is user + system of the process
 * (and of the Node launcher it replaces itself with: the bin runs under Bun directly here). `--repo DIR` measures
 * another checkout's `bin/goondan` on the same example, to compare commits in one run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startGoondanRun } from "../test/helpers/goondan-process.ts";
import { flag } from "./support/flag.ts";
import { percentile } from "./support/percentile.ts";
import { processCpuMs } from "./support/process-cpu.ts";

const RUNS = Number(flag("runs", "15"));
const REPO = resolve(flag("repo", new URL("..", import.meta.url).pathname));
const BIN = join(REPO, "bin/goondan");

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** A command run to its exit: wall time, and CPU from Bun's resource usage of the child. */
async function toExit(argv: string[]): Promise<Sample> {
  const started = performance.now();
  const proc = Bun.spawn(argv, { cwd: REPO, stdout: "ignore", stderr: "pipe" });
  const code = await proc.exited;
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${await new Response(proc.stderr).text()}`);
  const usage = proc.resourceUsage();
  const cpuMs = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : Number.NaN;
  return { wallMs, cpuMs };
}

/**
 * `goondan run` on the example up to `ready` on `stateRoot` (a new one when not given, removed after): wall time, and
 * the process's CPU read from /proc at that line.
 */
async function runToReady(kept?: string): Promise<Sample> {
  const stateRoot = kept ?? mkdtempSync(join(tmpdir(), "goondan-startup-"));
  const started = performance.now();
  let pid = 0;
  const { proc } = await startGoondanRun({
    bin: BIN,
    args: [REPO, "--port", "0", "--state-root", stateRoot],
    stderr: "ignore",
    readyTimeoutMs: 60_000,
    onSpawn: (spawned) => {
      pid = spawned.pid;
    },
  });
  const wallMs = performance.now() - started;
  const cpuMs = processCpuMs(pid);
  proc.kill("SIGTERM");
  await proc.exited;
  if (kept === undefined) rmSync(stateRoot, { recursive: true, force: true });
  return { wallMs, cpuMs };
}

const restartRoot = mkdtempSync(join(tmpdir(), "goondan-startup-restart-"));
await runToReady(restartRoot);

const kinds = {
  "bare bun -e ''": () => toExit([process.execPath, "-e", ""]),
  "goondan validate": () => toExit([process.execPath, BIN, "validate"]),
  "run → ready, new root": () => runToReady(),
  "run → ready, restart": () => runToReady(restartRoot),
};
const samples = new Map<string, Sample[]>(Object.keys(kinds).map((name) => [name, []]));
for (let run = 0; run < RUNS; run++)
  for (const [name, measure] of Object.entries(kinds)) samples.get(name)?.push(await measure());

console.log(`start-up, ${RUNS} runs each in turn (bun ${Bun.version}); repo ${REPO}`);
const floor = samples.get("bare bun -e ''") ?? [];
const median = (values: number[]) => percentile(values, 50);
for (const [name, taken] of samples) {
  const wall = median(taken.map((sample) => sample.wallMs));
  const cpu = median(taken.map((sample) => sample.cpuMs));
  const overFloor = `${(wall / median(floor.map((s) => s.wallMs))).toFixed(1)}× the floor's wall`;
  const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;
  console.log(`  ${name.padEnd(24)} wall p50 ${ms(wall)}  CPU p50 ${ms(cpu)}  ${overFloor}`);
}
rmSync(restartRoot, { recursive: true, force: true });
