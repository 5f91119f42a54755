/**
 * The top costs of each `.cpuprofile` in a directory (written with `BUN_OPTIONS=--cpu-prof --cpu-prof-dir=DIR`):
 * per process, its sampled time, the functions with the most self time and the `src/` files with the most
 * inclusive time (a sample counts once per file on its stack). Used to find where goondan's request path spends
 * its CPU (docs/benchmarks.md, issue 26).
 *
 *   bun bench/profile-top.ts DIR [--top N] [--min-ms MS]
 */
import { flag } from "./support/flag.ts";
import { filesOnStack, readCpuProfiles, samplingIntervalMs } from "./support/cpu-profile.ts";

const dir = process.argv[2];
if (dir === undefined || dir.startsWith("--")) throw new Error("usage: bun bench/profile-top.ts DIR [--top N]");
const top = Number(flag("top", "25"));
const minMs = Number(flag("min-ms", "200"));

type Node = { id: number; callFrame: { url: string; functionName?: string; lineNumber?: number }; children?: number[] };

const short = (url: string): string => {
  const at = url.lastIndexOf("/src/");
  if (at >= 0) return url.slice(at + 1);
  const nm = url.lastIndexOf("node_modules/");
  return nm >= 0 ? url.slice(nm + 13) : url;
};

for (const { pid, profile } of readCpuProfiles(dir)) {
  const nodes = profile.nodes as Node[];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const files = new Map<string, number>();
  const stackOf = filesOnStack(profile, (url) => (url.includes("/src/") ? short(url) : undefined));
  let total = 0;
  // Every sample weighs one sampling interval. The gap after a sample is no measure of it: Bun takes no samples
  // while the thread sleeps, so the gap after the last call before a sleep (a COMMIT, an IPC send) holds the sleep.
  const dt = samplingIntervalMs(profile.timeDeltas);
  profile.samples.forEach((id) => {
    const frame = byId.get(id)?.callFrame;
    const name = frame?.functionName || "(anonymous)";
    if (name === "(idle)" || name === "(program)") return;
    total += dt;
    const key = `${name} ${short(frame?.url ?? "")}:${frame?.lineNumber ?? ""}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    for (const file of stackOf(id)) files.set(file, (files.get(file) ?? 0) + dt);
  });
  if (total < minMs) continue;
  const srcFiles = [...files.keys()].some((file) => file.startsWith("src/orchestrator/")) ? "orchestrator" : "";
  console.log(`\n== pid ${pid} ${srcFiles}: ${total.toFixed(0)} ms sampled (not idle; ${dt.toFixed(3)} ms a sample)`);
  console.log("  self time:");
  for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${ms.toFixed(0).padStart(6)} ms ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
  console.log("  src files, inclusive:");
  for (const [key, ms] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${ms.toFixed(0).padStart(6)} ms ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}
