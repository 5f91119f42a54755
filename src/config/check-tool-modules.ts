/**
 * The Tool checklist's module part (seed 003 §13): the entry module loads (a failure, a hang or an exit
 * becomes an issue, never a crash), exports a `handlers` object, and has a function for every export; a
 * handler no export declares is a warning. Modules are imported in a separate Bun process (probe-modules),
 * so edited files are seen fresh and their top-level code never runs in the validating process.
 */
import type { IssueList } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { resolveBundlePath } from "./bundle-path.ts";
import { probeModules } from "./probe-modules.ts";
import type { ProbeResult } from "./probe-result.ts";

/** How long an entry module may take to load. */
export const MODULE_LOAD_TIMEOUT_MS = 5000;

export async function checkToolModules(options: {
  resources: LoadedResource[];
  issues: IssueList;
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
}): Promise<void> {
  const tools = options.resources.flatMap((loaded) => {
    if (loaded.resource.kind !== "Tool") return [];
    const resolved = resolveBundlePath({
      baseDir: loaded.resource.source.baseDir,
      relativePath: loaded.resource.spec.entry,
    });
    return resolved.ok && resolved.exists ? [{ loaded, path: resolved.path }] : []; // check-files reports the others
  });
  if (tools.length === 0) return;
  const results = await probeModules({
    paths: tools.map((tool) => tool.path),
    cwd: options.cwd ?? tools[0]!.loaded.resource.source.baseDir,
    env: options.env ?? process.env,
    timeoutMs: options.timeoutMs ?? MODULE_LOAD_TIMEOUT_MS,
  });
  for (const { loaded, path } of tools) {
    const result = results.get(path);
    if (result) reportModule({ loaded, result, issues: options.issues });
  }
}

function reportModule(options: { loaded: LoadedResource; result: ProbeResult; issues: IssueList }): void {
  const { loaded, result, issues } = options;
  if (loaded.resource.kind !== "Tool") return;
  const { spec } = loaded.resource;
  if (!result.loaded || !result.handlers) {
    issues.at(loaded.site, ["spec", "entry"], {
      code: "E_CONFIG_MODULE_LOAD",
      message: `expected ${spec.entry} to load, found: ${result.error ?? "no report"}`,
    });
    return;
  }
  if (result.handlers.kind !== "object") {
    issues.at(loaded.site, ["spec", "entry"], {
      code: "E_CONFIG_HANDLERS_MISSING",
      message: `expected ${spec.entry} to export \`handlers\` (an object of functions by export name), found ${result.handlers.kind === "missing" ? "no such export" : result.handlers.found}`,
      suggestion: "export const handlers = { <export>: async (ctx, input) => { … } }",
    });
    return;
  }
  const types = result.handlers.types;
  spec.exports.forEach((item, index) => {
    if (types[item.name] === "function") return;
    issues.at(loaded.site, ["spec", "exports", index, "name"], {
      code: "E_CONFIG_HANDLER_MISSING",
      message: `expected handlers["${item.name}"] to be a function in ${spec.entry}, found ${types[item.name] ?? "none"}`,
      suggestion: `defined handlers: ${Object.keys(types).join(", ") || "none"}`,
    });
  });
  const declared = new Set(spec.exports.map((item) => item.name));
  for (const name of Object.keys(types)) {
    if (declared.has(name)) continue;
    issues.at(loaded.site, ["spec", "exports"], {
      code: "W_CONFIG_HANDLER_UNUSED",
      message: `expected every handler to have an export, found handlers["${name}"] in ${spec.entry} without one`,
      suggestion: `add {name: ${name}} to spec.exports or remove the handler`,
    });
  }
}
