/**
 * Validation for reloads: the bundle on disk, its Swarm's env vars, and its Tool modules checked in a
 * fresh Bun process (`goondan validate --format json`). The orchestrator process has already imported
 * the old tool modules, and an import in it would see those cached copies, not the edited files.
 */
import { resolve } from "node:path";
import { loadBundle } from "../../config/load-bundle.ts";
import { selectSwarm } from "../../config/resolve.ts";
import { missingEnvIssues, type Env } from "../../config/value-source.ts";
import type { Bundle, ConfigIssue } from "../../config/types.ts";
import { isGoondanError } from "../../shared/errors.ts";

const GOONDAN_BIN = new URL("../../../bin/goondan", import.meta.url).pathname;

export interface ValidateOnDiskOptions {
  /** Bundle directory or goondan.yaml path. */
  target: string;
  /** The running Swarm's name. */
  swarm?: string;
  env: Env;
  /** Check Tool modules in a fresh process. Default true. */
  checkModules?: boolean;
}

export interface DiskValidation {
  valid: boolean;
  bundle?: Bundle;
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
}

/** Tool-module issues as a fresh process sees them. */
async function moduleIssues(target: string, env: Env): Promise<ConfigIssue[]> {
  const child = Bun.spawn([process.execPath, GOONDAN_BIN, "validate", resolve(target), "--format", "json"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
    env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
  });
  const [text] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  try {
    const report = JSON.parse(text) as { errors?: ConfigIssue[] };
    return report.errors ?? [];
  } catch {
    return [{ code: "E_CONFIG_VALIDATION_FAILED", severity: "error", path: target, message: "expected the module check to report JSON, found none (the validator crashed)" }];
  }
}

export async function validateBundleOnDisk(options: ValidateOnDiskOptions): Promise<DiskValidation> {
  const loaded = await loadBundle(options.target, { env: options.env, checkModules: false });
  if (!loaded.valid || loaded.bundle === undefined) return { valid: false, errors: loaded.errors, warnings: loaded.warnings };
  const errors: ConfigIssue[] = [];
  try {
    errors.push(...missingEnvIssues(loaded.bundle, selectSwarm(loaded.bundle, options.swarm), options.env));
  } catch (error) {
    if (!isGoondanError(error)) throw error;
    errors.push({ code: error.code, severity: "error", path: loaded.bundle.file, message: error.message });
  }
  if (options.checkModules ?? true) {
    const seen = new Set(errors.map((issue) => `${issue.code} ${issue.path}`));
    for (const issue of await moduleIssues(options.target, options.env)) if (!seen.has(`${issue.code} ${issue.path}`)) errors.push(issue);
  }
  return errors.length > 0 ? { valid: false, errors, warnings: loaded.warnings } : { valid: true, bundle: loaded.bundle, errors: [], warnings: loaded.warnings };
}
