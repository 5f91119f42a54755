/**
 * The content hash of a bundle directory, which every node of a cluster must share: SHA-256 over each file's
 * path relative to the bundle and its bytes, in path order, so the same bundle at another path on another host
 * hashes the same. The walk skips what is not the bundle itself, by the rules of the bundle scan
 * (config/bundle-files.ts): `node_modules`, `dist`, `.git` and every hidden directory (a state root kept in
 * `.goondan`), directories holding their own goondan.yaml (other bundles), and symlinks. A bundle of more than
 * MAX_BUNDLE_FILES files is refused rather than read whole.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { MAIN_FILE_NAMES } from "../../config/bundle-files.ts";
import { ConfigError } from "../../shared/errors.ts";

export const MAX_BUNDLE_FILES = 10_000;
const SKIPPED_DIRECTORIES = new Set(["node_modules", "dist"]);

/** `sha256:<hex>` of the bundle at `dir`. */
export function bundleHash(dir: string): string {
  const files: string[] = [];
  collect(dir, dir, files);
  files.sort();
  const hash = createHash("sha256");
  for (const file of files) {
    const bytes = readFileSync(join(dir, file));
    hash.update(`${file.split(sep).join("/")}\0${bytes.length}\0`).update(bytes);
  }
  return `sha256:${hash.digest("hex")}`;
}

function collect(root: string, dir: string, files: string[]): void {
  const entries = readdirSync(dir, { withFileTypes: true });
  if (
    dir !== root &&
    entries.some((entry) => entry.isFile() && (MAIN_FILE_NAMES as readonly string[]).includes(entry.name))
  )
    return;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith(".") && !SKIPPED_DIRECTORIES.has(entry.name)) collect(root, path, files);
    } else if (entry.isFile()) {
      files.push(relative(root, path));
      if (files.length > MAX_BUNDLE_FILES) {
        throw new ConfigError(
          "E_CLUSTER_BUNDLE_TOO_LARGE",
          `${root}: the bundle holds more than ${MAX_BUNDLE_FILES} files; a cluster hashes every file of it`,
          {
            suggestion:
              "Keep data and build output out of the bundle directory (dist/ and hidden directories are skipped).",
          },
        );
      }
    }
  }
}
