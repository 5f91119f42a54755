/**
 * Loading a bundle: locate goondan.yaml, read its documents, validate each against its kind's schema,
 * normalize with defaults, then run every cross-check (names, refs, wiring, files, parameters, Tool
 * modules) and report all issues at once. Bad user input never throws; only our own bugs do.
 */
import { stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { ConfigError } from "../shared/errors.ts";
import type { Bundle, ConfigIssue } from "./types.ts";
import { IssueList } from "./issues.ts";
import { readDocuments } from "./read-documents.ts";
import { collectResources } from "./collect-resources.ts";
import { loadBuiltinPackage } from "./builtin-package.ts";
import { checkNames } from "./check-names.ts";
import { buildRefIndex, checkRefKinds, checkRefs } from "./check-refs.ts";
import { checkWiring } from "./check-wiring.ts";
import { checkMcpConfig } from "./check-mcp-config.ts";
import { checkFiles } from "./check-files.ts";
import { checkParameters } from "./check-parameters.ts";
import { checkToolModules } from "./check-tool-modules.ts";

export interface LoadBundleOptions {
  /** Environment of the child process that imports Tool modules. Default: process.env. Validation does not require env vars (see missingEnvIssues). */
  env?: Record<string, string | undefined>;
  /** Import Tool entry modules (in a separate Bun process) to check their handlers. Default: true. */
  checkModules?: boolean;
  /** Longest time one Tool module may take to load before it is reported. Default: 5000 ms. */
  moduleTimeoutMs?: number;
}

export interface BundleLoadResult {
  valid: boolean;
  /** Present when valid. */
  bundle?: Bundle;
  errors: ConfigIssue[];
  warnings: ConfigIssue[];
}

export const BUNDLE_FILE_NAME = "goondan.yaml";

/** `target` is a bundle directory or the path of its goondan.yaml. */
export async function loadBundle(target: string, options: LoadBundleOptions = {}): Promise<BundleLoadResult> {
  const issues = new IssueList();
  const { dir, file } = await locateBundle(target);
  const label = basename(file);
  const { documents, parseFailed } = await readDocuments({ file, label, issues });
  const { resources: local, invalidNames } = collectResources({ documents, issues, file, baseDir: dir, builtin: false });
  const builtins = await loadBuiltinPackage();
  checkNames({ resources: local, issues });
  const index = buildRefIndex({ local, builtin: builtins, invalidNames });
  checkRefKinds({ resources: local, index, issues });
  if (!parseFailed) {
    checkRefs({ resources: local, index, issues });
    checkWiring({ resources: local, index, issues });
    checkMcpConfig({ resources: local, issues });
  }
  // Built-in files are ours: test/config/builtin-package.test.ts checks them, not every user's validate.
  checkFiles({ resources: local, issues });
  checkParameters({ resources: local, issues });
  if (options.checkModules ?? true) await checkToolModules({ resources: local, issues, cwd: dir, ...(options.env ? { env: options.env } : {}), ...(options.moduleTimeoutMs ? { timeoutMs: options.moduleTimeoutMs } : {}) });
  const valid = issues.errors.length === 0;
  return {
    valid,
    ...(valid ? { bundle: { dir, file, resources: [...local, ...builtins].map((loaded) => loaded.resource) } } : {}),
    errors: issues.errors,
    warnings: issues.warnings,
  };
}

/** Loads a bundle or throws ConfigError E_CONFIG_INVALID whose message lists every error. */
export async function loadBundleOrThrow(target: string, options: LoadBundleOptions = {}): Promise<Bundle> {
  const result = await loadBundle(target, options);
  if (result.bundle) return result.bundle;
  throw new ConfigError("E_CONFIG_INVALID", `invalid bundle ${target}:\n${formatIssues(result.errors)}`, {
    suggestion: "run 'goondan validate' for details",
  });
}

export function formatIssue(issue: ConfigIssue): string {
  return `${issue.path}: ${issue.code} ${issue.message}${issue.suggestion ? `; ${issue.suggestion}` : ""}`;
}

export function formatIssues(issues: readonly ConfigIssue[]): string {
  return issues.map(formatIssue).join("\n");
}

async function locateBundle(target: string): Promise<{ dir: string; file: string }> {
  const absolute = resolve(target);
  try {
    if ((await stat(absolute)).isDirectory()) return { dir: absolute, file: resolve(absolute, BUNDLE_FILE_NAME) };
  } catch {
    // Not there: readDocuments reports the missing file.
  }
  if (/\.ya?ml$/i.test(absolute)) return { dir: dirname(absolute), file: absolute };
  return { dir: absolute, file: resolve(absolute, BUNDLE_FILE_NAME) };
}
