/**
 * Reading the `.cpuprofile` files Bun writes under `--cpu-prof` (Chrome's format: a tree of nodes, each with a
 * `callFrame.url`, and the sampled leaf node of every tick with the µs since the one before): which profiles a
 * directory holds, by process id, and how many samples had a given file anywhere on their stack.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface CpuProfile {
  nodes: { id: number; callFrame: { url: string }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The profiles in `dir`, with the pid Bun writes into each name (`CPU.<date>.<time>.<pid>.<n>.<seq>.cpuprofile`). */
export function readCpuProfiles(dir: string): { pid: number; file: string; profile: CpuProfile }[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .sort()
    .map((name) => ({
      pid: Number(name.split(".")[3]),
      file: name,
      profile: JSON.parse(readFileSync(join(dir, name), "utf8")) as CpuProfile,
    }));
}

/**
 * The files on the stack of each sampled node, its own and its callers' (each once), by node id, remembered as they
 * are asked for: `fileOf` maps a frame's URL to the file to count, or undefined to skip it.
 */
export function filesOnStack(
  profile: CpuProfile,
  fileOf: (url: string) => string | undefined,
): (id: number) => Set<string> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const known = new Map<number, Set<string>>();
  const stackFiles = (id: number): Set<string> => {
    const found = known.get(id);
    if (found) return found;
    const up = parent.get(id);
    const files = new Set(up === undefined ? [] : stackFiles(up));
    const file = fileOf(byId.get(id)?.callFrame.url ?? "");
    if (file !== undefined) files.add(file);
    known.set(id, files);
    return files;
  };
  return stackFiles;
}

/**
 * Samples per file: a sample counts once for each file `fileOf` names among the frames of its stack (leaf to
 * root). `fileOf` maps a frame's URL to the file to count, or undefined to skip it. `from`/`to` (epoch µs, the
 * profile's clock) keep only the samples taken in that window.
 */
export function samplesPerFile(options: {
  profile: CpuProfile;
  fileOf: (url: string) => string | undefined;
  from?: number;
  to?: number;
}): Map<string, number> {
  const { profile } = options;
  const stackFiles = filesOnStack(profile, options.fileOf);
  const counts = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if ((options.from !== undefined && at < options.from) || (options.to !== undefined && at > options.to)) return;
    for (const file of stackFiles(id)) counts.set(file, (counts.get(file) ?? 0) + 1);
  });
  return counts;
}

/**
 * The profile's sampling interval in ms: the gap between samples taken back to back while the thread ran (the
 * lowest decile of the gaps; a sleeping thread is not sampled, so the longer gaps hold sleeps, not work).
 */
export function samplingIntervalMs(timeDeltas: readonly number[]): number {
  const sorted = timeDeltas.filter((delta) => delta > 0).sort((a, b) => a - b);
  return (sorted[Math.floor(sorted.length / 10)] ?? 1000) / 1000;
}
