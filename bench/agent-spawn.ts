/**
 * Spawn-to-ready of the real agent child (src/agent/entry.ts, loading a one-agent bundle with an
 * openai-compatible model and one local tool) against a floor measured in the same run: a bare Bun child that
 * imports the same libraries (ai, @ai-sdk/openai-compatible, pino, p-queue, yaml, ajv) bundled with Bun.build
 * and then says ready over IPC. Prints medians, the ratio (goal < 1.5x) and idle PSS per child from
 * /proc/<pid>/smaps_rollup. The bundled agent child is also started in the sandbox `goondan run` gives agent
 * processes by default (supervision/agent-sandbox.ts: unshare with PID, mount and user namespaces, the state root
 * covered), where this machine allows it, so the sandbox's own cost shows beside it.
 * Usage: `bun bench/agent-spawn.ts [runs]` (default 10).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadBundleOrThrow } from "../src/config/load-bundle.ts";
import { AGENT_ENTRY_SCRIPT, agentChildArgv, BUNDLE_SNAPSHOT_ENV } from "../src/protocol/child-entry.ts";
import { bundleAgentEntry } from "../src/daemon/agent-entry-bundle.ts";
import { silentLogger } from "../src/shared/logger.ts";
import { writeFixtureBundle } from "../test/agent/support/child-harness.ts";
import { onlyChild } from "../src/shared/only-child.ts";
import { probeAgentSandbox } from "../src/supervision/agent-sandbox.ts";
import { percentile } from "./support/percentile.ts";

const runs = Number(process.argv[2] ?? 10);
const work = mkdtempSync(join(tmpdir(), "goondan-bench-spawn-"));

async function buildFloor(): Promise<{ bundled: string; unbundled: string }> {
  // The entry must live inside the repo so its imports resolve to our node_modules.
  const cache = join(import.meta.dir, "..", "node_modules", ".cache", "goondan-bench");
  mkdirSync(cache, { recursive: true });
  const entry = join(cache, "floor-entry.ts");
  writeFileSync(
    entry,
    [
      'import * as ai from "ai";',
      'import * as compatible from "@ai-sdk/openai-compatible";',
      'import pino from "pino";',
      'import PQueue from "p-queue";',
      'import * as yaml from "yaml";',
      'import Ajv from "ajv";',
      "(globalThis as Record<string, unknown>).__keep = [ai, compatible, pino, PQueue, yaml, Ajv];",
      'process.send?.({ type: "ready" });',
      "setInterval(() => {}, 1 << 30);",
    ].join("\n"),
  );
  const result = await Bun.build({ entrypoints: [entry], target: "bun", outdir: join(work, "floor"), root: cache });
  if (!result.success) throw new Error(`floor bundle failed: ${result.logs.join("\n")}`);
  return { bundled: result.outputs[0]!.path, unbundled: entry };
}

async function pss(pid: number): Promise<number> {
  const text = await Bun.file(`/proc/${pid}/smaps_rollup`)
    .text()
    .catch(() => "");
  const match = /^Pss:\s+(\d+) kB/m.exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

async function spawnToReady(
  argv: string[],
  env: Record<string, string>,
  launcher: string[] = [],
): Promise<{ ms: number; pssKb: number }> {
  const started = performance.now();
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const child = Bun.spawn([...launcher, process.execPath, ...argv], {
    env: { ...process.env, ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "inherit",
    serialization: "json",
    ipc(message) {
      const type = (message as { type?: string }).type;
      if (type === "ready") onReady();
      if (type === "fatal") throw new Error(`child fatal: ${JSON.stringify(message)}`);
    },
  });
  // The orchestrator hands a new agent child its state first (an empty one here); the floor child ignores it.
  child.send({
    type: "hydrate",
    from: "orchestrator",
    to: "assistant/main",
    payload: { messages: [], pendingResults: [], extensionState: {} },
  });
  const ended = child.exited.then((code) => {
    throw new Error(`the child exited with code ${code} before it was ready: ${[...launcher, ...argv].join(" ")}`);
  });
  await Promise.race([ready, ended]);
  ended.catch(() => {});
  const ms = performance.now() - started;
  await Bun.sleep(300);
  // In a sandbox, the launcher's one child is the agent process.
  const inner = launcher.length > 0 ? onlyChild(child.pid) : undefined;
  const pssKb = await pss(inner ?? child.pid);
  if (inner !== undefined) process.kill(inner, 9);
  child.kill(9);
  await child.exited;
  return { ms, pssKb };
}

const median = (values: number[]): number => percentile(values, 50);

const floorScripts = await buildFloor();
const bundle = writeFixtureBundle({ endpoint: "http://127.0.0.1:9/v1" });
const snapshot = join(work, "bundle.json");
writeFileSync(snapshot, JSON.stringify(await loadBundleOrThrow(bundle, { checkModules: false })));
const bundledEntry = await bundleAgentEntry({ stateRoot: work, logger: silentLogger() });
const sandbox = await probeAgentSandbox({ stateRoot: work, logger: silentLogger() });
const samples: Record<
  "floor" | "unbundled" | "bundled" | "sandboxed" | "snapshot" | "directory",
  { ms: number; pssKb: number }[]
> = {
  floor: [],
  unbundled: [],
  bundled: [],
  sandboxed: [],
  snapshot: [],
  directory: [],
};
const childArgv = (stateRoot = mkdtempSync(join(work, "state-"))) => [
  AGENT_ENTRY_SCRIPT,
  ...agentChildArgv({ bundle, swarm: "fixture", agent: "assistant", instanceKey: "main", stateRoot }),
];
const childEnv = { LOOPBACK_API_KEY: "bench", GOONDAN_LOG_LEVEL: "warn" };
for (let run = 0; run < runs; run++) {
  // Interleave so every variant sees the same machine load.
  samples.floor.push(await spawnToReady([floorScripts.bundled], {}));
  samples.unbundled.push(await spawnToReady([floorScripts.unbundled], {}));
  samples.bundled.push(
    await spawnToReady([bundledEntry, ...childArgv().slice(1)], { ...childEnv, [BUNDLE_SNAPSHOT_ENV]: snapshot }),
  );
  if (sandbox.state.isolated) {
    const stateRoot = mkdtempSync(join(work, "state-"));
    // As the spawner asks: the bundled entry's directory (its chunks) and the snapshot stay in view, read-only.
    const readOnly = [snapshot, dirname(bundledEntry)];
    const launcher = sandbox.launcher({ setting: "required", keep: [stateRoot], readOnly });
    samples.sandboxed.push(
      await spawnToReady(
        [bundledEntry, ...childArgv(stateRoot).slice(1)],
        { ...childEnv, [BUNDLE_SNAPSHOT_ENV]: snapshot },
        launcher,
      ),
    );
  }
  samples.snapshot.push(await spawnToReady(childArgv(), { ...childEnv, [BUNDLE_SNAPSHOT_ENV]: snapshot }));
  samples.directory.push(await spawnToReady(childArgv(), childEnv));
}
const figures = Object.fromEntries(
  Object.entries(samples).map(([name, list]) => [
    name,
    { ms: median(list.map((sample) => sample.ms)), pssKb: median(list.map((sample) => sample.pssKb)) },
  ]),
) as Record<keyof typeof samples, { ms: number; pssKb: number }>;
const line = (label: string, figure: { ms: number; pssKb: number }) =>
  `${label.padEnd(58)} spawn-to-ready median ${figure.ms.toFixed(1).padStart(6)} ms, idle PSS ${(figure.pssKb / 1024).toFixed(1)} MiB`;
console.log(`runs: ${runs}`);
console.log(line("floor (bare Bun child, same libraries bundled)", figures.floor));
console.log(line("same libraries imported unbundled (how we run from source)", figures.unbundled));
console.log(line("agent child, bundled entry + snapshot (goondan run's path)", figures.bundled));
if (sandbox.state.isolated) console.log(line("  the same in its sandbox (goondan run's default)", figures.sandboxed));
else console.log(`  the same in its sandbox: not measured, this machine refuses it (${sandbox.state.reason})`);
console.log(line("agent child from source + snapshot", figures.snapshot));
console.log(line("agent child, loading + validating the bundle directory", figures.directory));
console.log(
  `ratio bundled/floor:   ${(figures.bundled.ms / figures.floor.ms).toFixed(2)}x (goal < 1.5x); PSS ratio ${(figures.bundled.pssKb / figures.floor.pssKb).toFixed(2)}x`,
);
if (sandbox.state.isolated)
  console.log(
    `ratio sandboxed/bundled: ${(figures.sandboxed.ms / figures.bundled.ms).toFixed(2)}x (+${(figures.sandboxed.ms - figures.bundled.ms).toFixed(1)} ms); sandboxed/floor ${(figures.sandboxed.ms / figures.floor.ms).toFixed(2)}x`,
  );
console.log(
  `ratio snapshot/floor:  ${(figures.snapshot.ms / figures.floor.ms).toFixed(2)}x; PSS ratio ${(figures.snapshot.pssKb / figures.floor.pssKb).toFixed(2)}x`,
);
console.log(
  `ratio directory/floor: ${(figures.directory.ms / figures.floor.ms).toFixed(2)}x; PSS ratio ${(figures.directory.pssKb / figures.floor.pssKb).toFixed(2)}x`,
);
