/**
 * Where `startSwarm`'s bundle is on disk: a path as given, or an in-memory bundle written to a fresh temporary
 * directory (its tools, prompts and entry files are imported by path by the agent processes, so they must be files),
 * removed by `dispose`. A file path that leaves the directory is refused.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { StartSwarmOptions } from "./swarm-options.ts";

export interface BundleOnDisk {
  path: string;
  dispose(): void;
}

export function bundleOnDisk(bundle: StartSwarmOptions["bundle"]): BundleOnDisk {
  if (typeof bundle === "string") return { path: resolve(bundle), dispose: () => {} };
  const names = Object.keys(bundle.files ?? {});
  if (!names.includes("goondan.yaml"))
    throw new TypeError(
      `startSwarm: bundle.files: expected a "goondan.yaml" among the files, got ${JSON.stringify(names.slice(0, 20))}`,
    );
  const dir = mkdtempSync(join(tmpdir(), "goondan-bundle-"));
  try {
    for (const [name, text] of Object.entries(bundle.files)) {
      const path = resolve(dir, name);
      const inside = relative(dir, path);
      if (isAbsolute(name) || inside.startsWith("..") || inside === "")
        throw new TypeError(
          `startSwarm: bundle.files: ${JSON.stringify(name)} is not a relative path inside the bundle`,
        );
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { path: dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
