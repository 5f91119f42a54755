/**
 * Writes the validated Bundle the orchestrator runs as a JSON snapshot under the state root and names it to
 * children through GOONDAN_BUNDLE_SNAPSHOT: a child then runs exactly the config that was validated (a file
 * edited after validation cannot sneak in) and skips re-validating the bundle, most of its start-up time.
 * Files are content-addressed, so a reload writes a new snapshot while older children keep theirs.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Bundle } from "../config/types.ts";

export function writeBundleSnapshot(options: { stateRoot: string; bundle: Bundle }): string {
  const text = JSON.stringify(options.bundle);
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const dir = join(options.stateRoot, "snapshots");
  const file = join(dir, `bundle-${digest}.json`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
  return file;
}
