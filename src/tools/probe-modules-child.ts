/**
 * The child side of the Tool module probe: imports each entry path given on argv, in order, and after
 * each one prints a marked JSON line saying whether it loaded and what its `handlers` export holds. Runs
 * in its own Bun process so that a module's top-level code (a hang, process.exit, side effects) never
 * touches the validating process, and so that edited files are imported fresh.
 */
import "./goondan-module-resolver.ts"; // first: Tool modules may import "goondan"
import { pathToFileURL } from "node:url";
import { PROBE_MARKER, type ProbeResult } from "../config/probe-result.ts";

function describeHandlers(value: unknown): ProbeResult["handlers"] {
  if (value === undefined) return { kind: "missing" };
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { kind: "invalid", found: Array.isArray(value) ? "an array" : value === null ? "null" : typeof value };
  return {
    kind: "object",
    types: Object.fromEntries(Object.entries(value).map(([name, handler]) => [name, typeof handler])),
  };
}

for (const path of process.argv.slice(2)) {
  let result: ProbeResult;
  try {
    const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    result = { path, loaded: true, handlers: describeHandlers(module.handlers) };
  } catch (error) {
    result = { path, loaded: false, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  process.stdout.write(`\n${PROBE_MARKER}${JSON.stringify(result)}\n`);
}
process.exit(0);
