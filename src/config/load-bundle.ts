/**
 * Loading a bundle: locate goondan.yaml and the other YAML files of the bundle (bundle-files.ts), read
 * their documents, validate each against its kind's schema, normalize with defaults, then run every
 * cross-check (names, refs, wiring, ingress, files, parameters, Tool modules) and report all issues at
 * once. Bad user input never throws; only our own bugs do.
 */
import { existsSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, dirname, relative, resolve } from "node:path";
import { ConfigError } from "../shared/errors.ts";
import type { Bundle, ConfigIssue } from "./types.ts";
import { IssueList } from "./issues.ts";
import { readDocuments, type ParsedDocument } from "./read-documents.ts";
import { collectResources } from "./collect-resources.ts";
import { bundleFiles, MAIN_FILE_NAMES } from "./bundle-files.ts";
import { isJsonObject } from "../shared/json.ts";
import type { InvalidNames, LoadedResource } from "./loaded-resource.ts";
import { loadBuiltinPackage } from "./builtin-package.ts";
import { loadNpmPackages } from "./npm-packages.ts";
import { checkNames } from "./check-names.ts";
import { buildRefIndex, checkRefKinds, checkRefs } from "./check-refs.ts";
import { checkWiring } from "./check-wiring.ts";
import { checkIngress } from "./check-ingress.ts";
import { checkMcpConfig } from "./check-mcp-config.ts";
import { checkToolApprovalConfig } from "./check-tool-approval-config.ts";
import { checkScheduleConfig } from "./check-schedule-config.ts";
import { checkBudgetConfig } from "./check-budget-config.ts";
import { checkFiles } from "./check-files.ts";
import { checkParameters } from "./check-parameters.ts";
import { checkToolModules } from "./check-tool-modules.ts";
import { checkEvals } from "./check-evals.ts";

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
  const { dir, file, scan } = await locateBundle(target);
  const { local, invalidNames, parseFailed } = await readResources({ dir, file, scan, issues });
  const builtins = await loadBuiltinPackage();
  const packages = await loadNpmPackages({ dir, local, issues });
  checkNames({ resources: local, issues });
  const index = buildRefIndex({ local, builtin: builtins, invalidNames, packages });
  checkRefKinds({ resources: local, index, issues });
  if (!parseFailed) {
    checkRefs({ resources: local, index, issues });
    checkWiring({ resources: local, index, issues });
    checkIngress({ resources: local, index, issues });
    if (!local.some((loaded) => loaded.resource.kind === "Swarm")) {
      issues.add({
        code: "W_SWARM_MISSING",
        path: relative(dir, file),
        message: "expected a Swarm to run, found none: the bundle validates, but goondan run has nothing to start",
        suggestion: "add a kind: Swarm document naming the entry agent and its agents",
      });
    }
    checkMcpConfig({ resources: local, issues });
    checkToolApprovalConfig({ resources: local, issues });
    checkScheduleConfig({ resources: local, issues });
    checkBudgetConfig({ resources: local, issues });
    checkEvals({ resources: local, index, issues });
  }
  // Built-in files are ours: test/config/builtin-package.test.ts checks them, not every user's validate.
  checkFiles({ resources: local, issues });
  checkParameters({ resources: local, issues });
  if (options.checkModules ?? true)
    await checkToolModules({
      resources: local,
      issues,
      cwd: dir,
      ...(options.env ? { env: options.env } : {}),
      ...(options.moduleTimeoutMs ? { timeoutMs: options.moduleTimeoutMs } : {}),
    });
  const valid = issues.errors.length === 0;
  return {
    valid,
    ...(valid
      ? {
          bundle: {
            dir,
            file,
            resources: [...local, ...[...packages.values()].flat(), ...builtins].map((loaded) => loaded.resource),
          },
        }
      : {}),
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

/**
 * One issue as a line for people and editors: `goondan.yaml:14:7: #2.spec.tools[1]: E_CODE message; suggestion`
 * when the issue points at a node of a file (the `file:line:column:` head that terminals and editors link), else
 * `goondan.yaml#2: E_CODE message` as the path reads.
 */
export function formatIssue(issue: ConfigIssue): string {
  const hash = issue.path.indexOf("#");
  const where =
    issue.line !== undefined && hash > 0
      ? `${issue.path.slice(0, hash)}:${issue.line}:${issue.column ?? 1}: ${issue.path.slice(hash)}`
      : issue.path;
  return `${where}: ${issue.code} ${issue.message}${issue.suggestion ? `; ${issue.suggestion}` : ""}`;
}

export function formatIssues(issues: readonly ConfigIssue[]): string {
  return issues.map(formatIssue).join("\n");
}

/**
 * Reads goondan.yaml and, when the whole bundle is loaded (`scan`), its other YAML files, in path order.
 * Every resource belongs to the package named by the Package document first in goondan.yaml, and entry
 * paths resolve against the bundle directory whichever file a resource is written in.
 */
async function readResources(options: {
  dir: string;
  file: string;
  scan: boolean;
  issues: IssueList;
}): Promise<{ local: LoadedResource[]; invalidNames: InvalidNames; parseFailed: boolean }> {
  const { dir, file, issues } = options;
  // Without a readable goondan.yaml there is no bundle: its absence is the one issue worth reporting.
  const files = options.scan && isRegularFile(file) ? bundleFiles(dir) : [];
  if (!files.includes(file)) files.unshift(file);
  const read: { file: string; documents: ParsedDocument[] }[] = [];
  let parseFailed = false;
  for (const path of files) {
    const result = await readDocuments({ file: path, label: relative(dir, path) || basename(path), issues });
    parseFailed ||= result.parseFailed;
    read.push({ file: path, documents: result.documents });
  }
  if (!parseFailed && read.every(({ documents }) => documents.every((document) => document.value === null))) {
    issues.add({
      code: "E_KIND_MISSING",
      path: relative(dir, file),
      message: "expected at least one resource document (with a kind), found none",
      suggestion: "run 'goondan init' to create a starting goondan.yaml",
    });
  }
  const packageName = packageNameOf(read.find((entry) => entry.file === file)?.documents ?? []);
  const local: LoadedResource[] = [];
  const invalidNames: InvalidNames = new Map();
  for (const entry of read) {
    const collected = collectResources({
      documents: entry.documents,
      issues,
      file: entry.file,
      baseDir: dir,
      builtin: false,
      mainFile: entry.file === file,
      ...(packageName ? { packageName } : {}),
    });
    local.push(...collected.resources);
    for (const [kind, names] of collected.invalidNames)
      invalidNames.set(kind, new Set([...(invalidNames.get(kind) ?? []), ...names]));
  }
  return { local, invalidNames, parseFailed };
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The name of the Package document heading goondan.yaml, if there is one. */
function packageNameOf(documents: ParsedDocument[]): string | undefined {
  const first = documents.find((document) => document.value !== null)?.value;
  if (!isJsonObject(first) || first.kind !== "Package" || !isJsonObject(first.metadata)) return undefined;
  return typeof first.metadata.name === "string" && first.metadata.name !== "" ? first.metadata.name : undefined;
}

/**
 * A directory or its goondan.yaml (or goondan.yml) loads the whole bundle; any other YAML file is loaded
 * alone, as a single-file bundle.
 */
async function locateBundle(target: string): Promise<{ dir: string; file: string; scan: boolean }> {
  const absolute = resolve(target);
  let isDirectory = false;
  try {
    isDirectory = (await stat(absolute)).isDirectory();
  } catch {
    // Not there: readDocuments reports the missing file.
  }
  if (isDirectory || !/\.ya?ml$/i.test(absolute)) {
    const main = MAIN_FILE_NAMES.map((name) => resolve(absolute, name)).find((path) => existsSync(path));
    return { dir: absolute, file: main ?? resolve(absolute, BUNDLE_FILE_NAME), scan: true };
  }
  return {
    dir: dirname(absolute),
    file: absolute,
    scan: (MAIN_FILE_NAMES as readonly string[]).includes(basename(absolute)),
  };
}
