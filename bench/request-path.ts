/**
 * How many of the repository's `src/` files a request crosses (issue 23's "about 38 files with logic"), measured
 * from CPU profiles of a real `goondan run`:
 *
 *   bun bench/request-path.ts [--requests N] [--repo DIR] [--interval µs] [--out FILE] [--keep]
 *
 * Bun takes `--cpu-prof` from `BUN_OPTIONS`, which goondan hands on to its agent children, so every Bun process
 * of the run writes a `.cpuprofile` when it exits cleanly (SIGTERM drains them). Two runs of the orchestrator
 * fixture swarm on the loopback LLM: an idle one (ready, a few seconds idle, SIGTERM) and a loaded one, where the
 * coordinator delegates with `agents__request` to the worker, the worker calls `slow__sleep`, both answer, and
 * each request is `POST /v1/events` with `"stream": true` read to its `done`. In the loaded run only the samples
 * taken between the end of the warm-up (which spawns the children) and the last `done` are counted.
 *
 * A file counts as sampled when it is anywhere on a sampled stack (once per sample), every process of a kind
 * summed. The rule: a file is on the request path when its count in the loaded window is at least
 * max(3, N / 30) and more than twice what idling as long costs it (its count in the idle run's window, the
 * seconds after ready, scaled to the loaded window's length). Start-up is outside both windows, so a file that
 * works at start-up and on every request (request schemas, daemon.ts) is judged by its requests only.
 * `--repo DIR` measures another checkout (its bin/goondan and src/); `--out FILE` writes the list as JSON;
 * `--keep` keeps the profiles' directories. Agent children run from source (GOONDAN_AGENT_FROM_SOURCE=1): the
 * bundle they load by default has no source map, so its frames would name no src/ file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { childEnv, lastRole, roleOf, writeSwarmBundle } from "../test/fixtures/orchestrator/real-swarm.ts";
import { startGoondanRun, until } from "../test/helpers/goondan-process.ts";
import {
  lastUserText,
  type LoopbackRequest,
  type LoopbackReply,
  startLoopbackLlm,
} from "../test/helpers/loopback-llm.ts";
import { readCpuProfiles, samplesPerFile } from "./support/cpu-profile.ts";
import { flag } from "./support/flag.ts";

const REQUESTS = Number(flag("requests", "300"));
const REPO = resolve(flag("repo", new URL("..", import.meta.url).pathname));
const INTERVAL_US = Number(flag("interval", "50"));
const WARM_UP = 5;
const IDLE_MS = 5_000;
const EXIT_TIMEOUT_MS = 30_000;
const MIN_SAMPLES = Math.max(3, Math.ceil(REQUESTS / 30));
const SRC = `${join(REPO, "src")}/`;

type Kind = "orchestrator" | "agent child" | "other child";
const KINDS: Kind[] = ["orchestrator", "agent child", "other child"];
type Counts = Record<Kind, Map<string, number>>;
const emptyCounts = (): Counts => ({ orchestrator: new Map(), "agent child": new Map(), "other child": new Map() });

/** The repository's src/ file (relative to src/) a frame's URL names, or undefined (node_modules, Bun, other). */
const fileOf = (url: string): string | undefined => {
  const path = url.startsWith("file://") ? decodeURIComponent(url.slice(7)) : url;
  return path.startsWith(SRC) && !path.includes("/node_modules/") ? relative(SRC, path) : undefined;
};

/** Coordinator → agents__request → worker → slow__sleep (returns at once after the first) → both answer. */
const script =
  (marker: string) =>
  (request: LoopbackRequest): LoopbackReply => {
    if (roleOf(request) === "worker")
      return lastRole(request) === "tool"
        ? { text: "worker done" }
        : { toolCalls: [{ name: "slow__sleep", args: { ms: 0, marker } }] };
    if (lastRole(request) === "user")
      return { toolCalls: [{ name: "agents__request", args: { target: "worker", input: lastUserText(request) } }] };
    return { text: "The answer, in a few pieces.", textPieces: 3 };
  };

/** One POST /v1/events with stream: true, read to the end; throws unless the stream ended with `done` ok. */
async function streamedRequest(base: string, index: number): Promise<void> {
  const response = await fetch(`${base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: `question ${index}`, instanceKey: `k${index % 2}`, stream: true }),
  });
  const text = await response.text();
  if (response.status !== 200 || !/event: done\ndata: \{[^\n]*"status":"ok"/.test(text))
    throw new Error(`request ${index}: ${response.status} ${text.slice(-400)}`);
}

/** One `goondan run` under --cpu-prof; `requests` 0 is the idle run. Returns the counts and the profile check. */
interface ProfiledRun {
  /** Samples per file in the window: the idle seconds after ready, or the requests after the warm-up. */
  counts: Counts;
  /** Samples per file over the run's whole life (start-up, window, shutdown). */
  whole: Counts;
  windowSeconds: number;
  notes: string[];
  seconds: number;
}

/**
 * The agents run outside their sandbox here: in it, the state root and /tmp are read-only, so a child could not
 * write its profile at exit. The sandbox only wraps how a child is started; the request path inside is the same.
 * A checkout from before the sandbox (`--repo`) knows no `process.sandbox` field and runs the bundle as written.
 */
function unsandboxed(dir: string): string {
  const file = join(dir, "goondan.yaml");
  if (!readFileSync(join(REPO, "src/config/schemas/agent.ts"), "utf8").includes("sandbox")) return dir;
  const yaml = readFileSync(file, "utf8").replace(
    /^( {2}prompt: \{ system: "ROLE=\w+" \}\n)/gm,
    "$1  process: { sandbox: none }\n",
  );
  if (yaml.split("process: { sandbox: none }").length !== 3)
    throw new Error(`${file}: could not turn the agents' sandbox off`);
  writeFileSync(file, yaml);
  return dir;
}

async function profiledRun(requests: number): Promise<ProfiledRun> {
  const profiles = mkdtempSync(join(tmpdir(), "goondan-request-path-prof-"));
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-request-path-state-"));
  const markers = mkdtempSync(join(tmpdir(), "goondan-request-path-marker-"));
  const llm = await startLoopbackLlm({ respond: script(join(markers, "sleep")) });
  const dir = unsandboxed(writeSwarmBundle({ endpoint: llm.url, streaming: true }));
  const started = performance.now();
  const run = await startGoondanRun({
    bin: join(REPO, "bin/goondan"),
    args: [dir, "--port", "0", "--state-root", stateRoot],
    env: {
      ...childEnv,
      GOONDAN_LOG_LEVEL: "info",
      // Children from source, not the Bun.build bundle (which has no source map), so their frames name src/ files.
      GOONDAN_AGENT_FROM_SOURCE: "1",
      BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${profiles} --cpu-prof-interval=${INTERVAL_US}`,
    },
    readyTimeoutMs: 60_000,
  });
  let from: number | undefined;
  let to: number | undefined;
  const notes: string[] = [];
  try {
    if (requests === 0) {
      from = Date.now() * 1000;
      await Bun.sleep(IDLE_MS);
    }
    for (let i = 0; i < requests + (requests > 0 ? WARM_UP : 0); i++) {
      if (i === WARM_UP) from = Date.now() * 1000;
      await streamedRequest(run.base, i);
    }
    to = Date.now() * 1000;
  } finally {
    run.proc.kill("SIGTERM");
    const exited = await Promise.race([run.proc.exited, Bun.sleep(EXIT_TIMEOUT_MS).then(() => "timeout" as const)]);
    if (exited === "timeout") {
      notes.push(`the orchestrator did not exit within ${EXIT_TIMEOUT_MS / 1000} s of SIGTERM: SIGKILLed`);
      run.proc.kill("SIGKILL");
    } else if (exited !== 0) notes.push(`the orchestrator exited with ${exited}`);
    await llm.close();
  }
  const seconds = (performance.now() - started) / 1000;
  // A child writes its profile as it exits, which may be a moment after the orchestrator is gone.
  const spawned = run.lines.filter((line) => typeof line.pid === "number" && line.pid !== run.proc.pid);
  const childPids = new Set(spawned.map((line) => line.pid as number));
  const expected = 1 + childPids.size;
  await until(() => readCpuProfiles(profiles).length >= expected, { timeoutMs: 10_000 }).catch(() => undefined);
  const found = readCpuProfiles(profiles);
  const counts = emptyCounts();
  const whole = emptyCounts();
  for (const { pid, profile } of found) {
    // Agent children log their pid when spawned; other children (a module probe) do not.
    const kind: Kind = pid === run.proc.pid ? "orchestrator" : childPids.has(pid) ? "agent child" : "other child";
    for (const [file, n] of samplesPerFile({ profile, fileOf, ...(from ? { from } : {}), ...(to ? { to } : {}) }))
      counts[kind].set(file, (counts[kind].get(file) ?? 0) + n);
    for (const [file, n] of samplesPerFile({ profile, fileOf }))
      whole[kind].set(file, (whole[kind].get(file) ?? 0) + n);
  }
  const foundPids = new Set(found.map((entry) => entry.pid));
  if (!foundPids.has(run.proc.pid)) notes.push(`the orchestrator (pid ${run.proc.pid}) wrote no profile`);
  for (const pid of childPids) if (!foundPids.has(pid)) notes.push(`agent child pid ${pid} wrote no profile`);
  const agents = found.filter((entry) => childPids.has(entry.pid)).length;
  notes.push(
    `${found.length} profiles: orchestrator ${foundPids.has(run.proc.pid) ? "yes" : "NO"}, agent children ${agents} of ${childPids.size} spawned, other children ${found.length - agents - (foundPids.has(run.proc.pid) ? 1 : 0)}`,
  );
  if (!process.argv.includes("--keep")) rmSync(profiles, { recursive: true, force: true });
  else notes.push(`profiles kept in ${profiles}`);
  rmSync(stateRoot, { recursive: true, force: true });
  rmSync(markers, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  return { counts, whole, windowSeconds: ((to ?? 0) - (from ?? 0)) / 1e6, notes, seconds };
}

async function main(): Promise<void> {
  console.log(
    `request path: src/ files a streamed delegated request crosses (bun ${Bun.version}, ${navigator.hardwareConcurrency} cpus, ${REQUESTS} requests, sampling every ${INTERVAL_US} µs)\nrepo: ${REPO}\n`,
  );
  const idle = await profiledRun(0);
  const loaded = await profiledRun(REQUESTS);
  // What idling for as long as the loaded window costs a file: its idle-window samples, scaled.
  const scale = loaded.windowSeconds / idle.windowSeconds;
  const idleFor = (kind: Kind, file: string) => Math.round((idle.counts[kind].get(file) ?? 0) * scale);
  const onPath: { kind: Kind; file: string; loaded: number; idle: number }[] = [];
  for (const kind of KINDS)
    for (const [file, n] of loaded.counts[kind]) {
      const base = idleFor(kind, file);
      if (n >= MIN_SAMPLES && n > 2 * base) onPath.push({ kind, file, loaded: n, idle: base });
    }
  onPath.sort(
    (a, b) =>
      KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind) ||
      dirname(a.file).localeCompare(dirname(b.file)) ||
      a.file.localeCompare(b.file),
  );
  for (const kind of KINDS) {
    const mine = onPath.filter((entry) => entry.kind === kind);
    console.log(`${kind}: ${mine.length} files on the path`);
    let folder = "";
    for (const entry of mine) {
      if (dirname(entry.file) !== folder) console.log(`  ${(folder = dirname(entry.file))}/`);
      console.log(
        `    ${entry.file.slice(folder.length + 1).padEnd(40)} ${String(entry.loaded).padStart(7)} samples (idle ${entry.idle})`,
      );
    }
  }
  const below = KINDS.flatMap((kind) =>
    [...loaded.counts[kind]]
      .filter(([file]) => !onPath.some((entry) => entry.kind === kind && entry.file === file))
      .map(
        ([file, n]) =>
          `${kind === "orchestrator" ? "" : `${kind}: `}${file} ${n} (idle ${idleFor(kind, file)}, whole idle run ${idle.whole[kind].get(file) ?? 0})`,
      )
      .sort(),
  );
  console.log(`\nsampled in the window but not on the path: ${below.join(", ") || "none"}`);
  const distinct = new Set(onPath.map((entry) => entry.file));
  const perKind = (pick: (kind: Kind) => number) => KINDS.map((kind) => `${kind} ${pick(kind)}`).join(", ");
  console.log(
    `\non the path: ${distinct.size} distinct src/ files (${perKind((kind) => onPath.filter((e) => e.kind === kind).length)}); rule: ≥ ${MIN_SAMPLES} samples in the ${loaded.windowSeconds.toFixed(1)} s window and > 2 × idle (the idle run's ${idle.windowSeconds.toFixed(1)} s after ready, × ${scale.toFixed(2)})`,
  );
  console.log(`loaded window, src/ files sampled at all: ${perKind((kind) => loaded.counts[kind].size)}`);
  console.log(
    `idle run (ready, ${IDLE_MS / 1000} s idle, SIGTERM), src/ files sampled: while idle ${perKind((kind) => idle.counts[kind].size)}; over its whole life ${perKind((kind) => idle.whole[kind].size)}`,
  );
  console.log(`wall time: idle run ${idle.seconds.toFixed(1)} s, loaded run ${loaded.seconds.toFixed(1)} s`);
  for (const note of [...idle.notes.map((n) => `idle: ${n}`), ...loaded.notes.map((n) => `loaded: ${n}`)])
    console.log(note);
  const out = flag("out", "");
  if (out !== "") writeFileSync(out, `${JSON.stringify(onPath, null, 2)}\n`);
}

await main();
