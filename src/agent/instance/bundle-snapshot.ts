/**
 * Reads the validated Bundle the orchestrator hands the child through `GOONDAN_BUNDLE_SNAPSHOT` (a JSON file,
 * see src/ipc/protocol.ts). An unreadable or malformed snapshot is a ConfigError, never a silent fallback, so a
 * child never runs a config other than the one the orchestrator validated.
 */
import { readFileSync } from "node:fs";
import type { Bundle } from "../../config/types.ts";
import { ConfigError } from "../../shared/errors.ts";

export function readBundleSnapshot(file: string): Bundle {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(
      "E_CONFIG_BUNDLE_SNAPSHOT",
      `cannot read the bundle snapshot ${file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const bundle = parsed as Partial<Bundle>;
  if (typeof bundle?.dir !== "string" || typeof bundle.file !== "string" || !Array.isArray(bundle.resources)) {
    throw new ConfigError(
      "E_CONFIG_BUNDLE_SNAPSHOT",
      `the bundle snapshot ${file} is not a Bundle: expected {dir, file, resources[]}`,
    );
  }
  return bundle as Bundle;
}
