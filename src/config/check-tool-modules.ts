/**
 * The Tool checklist's module part (seed 003 §13): the entry module loads (a failure or a hang becomes an
 * issue, never a crash), exports a `handlers` object, and has a function for every export; a handler no
 * export declares is a warning.
 */
import { pathToFileURL } from "node:url";
import type { IssueList } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { resolveBundlePath } from "./bundle-path.ts";
import { describeFound } from "./issues.ts";

/** How long an entry module may take to load. */
export const MODULE_LOAD_TIMEOUT_MS = 5000;

export async function checkToolModules(options: { resources: LoadedResource[]; issues: IssueList }): Promise<void> {
  const tools = options.resources.filter((loaded) => loaded.resource.kind === "Tool");
  await Promise.all(tools.map((loaded) => checkToolModule(loaded, options.issues)));
}

async function checkToolModule(loaded: LoadedResource, issues: IssueList): Promise<void> {
  if (loaded.resource.kind !== "Tool") return;
  const { spec, source } = loaded.resource;
  const resolved = resolveBundlePath({ baseDir: source.baseDir, relativePath: spec.entry });
  if (!resolved.ok || !resolved.exists) return; // check-files reports it
  let module: Record<string, unknown>;
  try {
    module = await importWithTimeout(resolved.path);
  } catch (error) {
    issues.at(loaded.site, ["spec", "entry"], {
      code: "E_CONFIG_MODULE_LOAD",
      message: `expected ${spec.entry} to load, found: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    });
    return;
  }
  const handlers = module.handlers;
  if (typeof handlers !== "object" || handlers === null || Array.isArray(handlers)) {
    issues.at(loaded.site, ["spec", "entry"], {
      code: "E_CONFIG_HANDLERS_MISSING",
      message: `expected ${spec.entry} to export \`handlers\` (an object of functions by export name), found ${handlers === undefined ? "no such export" : describeFound(handlers)}`,
      suggestion: "export const handlers = { <export>: async (ctx, input) => { … } }",
    });
    return;
  }
  const table = handlers as Record<string, unknown>;
  spec.exports.forEach((item, index) => {
    if (typeof table[item.name] === "function") return;
    issues.at(loaded.site, ["spec", "exports", index, "name"], {
      code: "E_CONFIG_HANDLER_MISSING",
      message: `expected handlers["${item.name}"] to be a function in ${spec.entry}, found ${table[item.name] === undefined ? "none" : typeof table[item.name]}`,
      suggestion: `defined handlers: ${Object.keys(table).join(", ") || "none"}`,
    });
  });
  const declared = new Set(spec.exports.map((item) => item.name));
  for (const name of Object.keys(table)) {
    if (declared.has(name)) continue;
    issues.at(loaded.site, ["spec", "exports"], {
      code: "W_CONFIG_HANDLER_UNUSED",
      message: `expected every handler to have an export, found handlers["${name}"] in ${spec.entry} without one`,
      suggestion: `add {name: ${name}} to spec.exports or remove the handler`,
    });
  }
}

async function importWithTimeout(path: string): Promise<Record<string, unknown>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${MODULE_LOAD_TIMEOUT_MS} ms`)), MODULE_LOAD_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([import(pathToFileURL(path).href), timeout])) as Record<string, unknown>;
  } finally {
    clearTimeout(timer);
  }
}
