/**
 * Validation for reloads: the bundle on disk with every check (Tool modules are probed in a fresh
 * process by the loader, so edited files are seen as they are now) plus the env vars the running Swarm
 * reads. A reload, a restart or a watched change goes ahead only when this finds no error.
 */
import { loadBundle } from "./load-bundle.ts";
import { selectSwarm } from "./resolve.ts";
import { missingEnvIssues, type Env } from "./value-source.ts";
import type { Bundle, ConfigIssue } from "./types.ts";
import { isGoondanError } from "../shared/errors.ts";

export interface ValidateOnDiskOptions {
  /** Bundle directory or goondan.yaml path. */
  target: string;
  /** The running Swarm's name. */
  swarm?: string;
  env: Env;
  /** Probe Tool modules. Default true. */
  checkModules?: boolean;
}

export interface DiskValidation {
  valid: boolean;
  bundle?: Bundle;
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
}

export async function validateBundleOnDisk(options: ValidateOnDiskOptions): Promise<DiskValidation> {
  const loaded = await loadBundle(options.target, { env: options.env, checkModules: options.checkModules ?? true });
  if (!loaded.valid || loaded.bundle === undefined)
    return { valid: false, errors: loaded.errors, warnings: loaded.warnings };
  const errors: ConfigIssue[] = [];
  try {
    errors.push(...missingEnvIssues(loaded.bundle, selectSwarm(loaded.bundle, options.swarm), options.env));
  } catch (error) {
    if (!isGoondanError(error)) throw error;
    errors.push({ code: error.code, severity: "error", path: loaded.bundle.file, message: error.message });
  }
  return errors.length > 0
    ? { valid: false, errors, warnings: loaded.warnings }
    : { valid: true, bundle: loaded.bundle, errors: [], warnings: loaded.warnings };
}
