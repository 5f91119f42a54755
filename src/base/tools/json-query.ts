/**
 * Built-in `json-query`: query, pick, count and flatten over JSON given as `data` or `json` (text), using
 * the path language of json-path.ts. A string `data` is JSON text, as in the public Goondan tool (whose
 * `data` is always text); any other `data` is the value itself. `pick` keeps top-level `keys` (the public
 * tool's parameter) and/or `paths`.
 */
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolHandler } from "../../tools/types.ts";
import { evaluatePath, parsePath } from "./json-path.ts";

function inputData(input: JsonObject): JsonValue {
  const hasData = Object.hasOwn(input, "data");
  const hasJson = typeof input.json === "string";
  if (hasData === hasJson) {
    throw new ToolFault("E_JSON_QUERY_INPUT", hasData ? "give either data or json, not both" : "no JSON given", {
      suggestion: "Pass the value as data, or JSON text as json.",
    });
  }
  if (hasData && typeof input.data !== "string") return input.data ?? null;
  const [field, text] = hasData ? ["data", input.data as string] : ["json", input.json as string];
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new ToolFault(
      "E_JSON_QUERY_PARSE",
      `${field} is not valid JSON text: ${error instanceof Error ? error.message : String(error)}`,
      {
        suggestion:
          field === "data"
            ? "A string data is read as JSON text; send objects, arrays and numbers as JSON values instead."
            : undefined,
      },
    );
  }
}

function select(data: JsonValue, path: string): { found: boolean; value: JsonValue } {
  const { matches, wildcard } = evaluatePath(data, parsePath(path));
  if (wildcard) return { found: matches.length > 0, value: matches };
  return matches.length > 0 ? { found: true, value: matches[0]! } : { found: false, value: null };
}

export const handlers: Record<string, ToolHandler> = {
  query: (_ctx, input) => {
    const path = String(input.path ?? "");
    return { path, ...select(inputData(input), path) };
  },
  pick: (_ctx, input) => {
    const keys = (Array.isArray(input.keys) ? input.keys : []).map(String);
    const paths = (Array.isArray(input.paths) ? input.paths : []).map(String);
    if (keys.length === 0 && paths.length === 0)
      throw new ToolFault("E_JSON_QUERY_INPUT", "nothing to pick", {
        suggestion: 'Give keys (e.g. ["id", "name"]) or paths (e.g. ["owner.name"]).',
      });
    const data = inputData(input);
    const keep = (out: JsonObject, name: string, value: JsonValue) =>
      Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    const pickOne = (value: JsonValue): JsonObject => {
      const out: JsonObject = {};
      const object = value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
      for (const key of keys) if (object !== undefined && Object.hasOwn(object, key)) keep(out, key, object[key]!);
      for (const path of paths) {
        const selected = select(value, path);
        if (selected.found) keep(out, path, selected.value);
      }
      return out;
    };
    return { value: Array.isArray(data) ? data.map(pickOne) : pickOne(data) };
  },
  count: (_ctx, input) => {
    const path = String(input.path ?? "");
    const { found, value } = select(inputData(input), path);
    if (!found) throw new ToolFault("E_JSON_QUERY_NOT_FOUND", `nothing at path ${JSON.stringify(path)}`);
    if (Array.isArray(value)) return { count: value.length, of: "items" };
    if (value !== null && typeof value === "object") return { count: Object.keys(value).length, of: "keys" };
    if (typeof value === "string") return { count: [...value].length, of: "characters" };
    throw new ToolFault(
      "E_JSON_QUERY_NOT_COUNTABLE",
      `the value at ${JSON.stringify(path)} is a ${value === null ? "null" : typeof value}, which has no count`,
    );
  },
  flatten: (_ctx, input) => {
    const path = String(input.path ?? "");
    const depth = typeof input.depth === "number" ? Math.min(100, Math.max(1, Math.trunc(input.depth))) : 1;
    const { found, value } = select(inputData(input), path);
    if (!found || !Array.isArray(value))
      throw new ToolFault("E_JSON_QUERY_NOT_ARRAY", `the value at ${JSON.stringify(path)} is not an array`);
    const flat = (value as unknown[]).flat(depth) as JsonValue[];
    return { value: flat, count: flat.length };
  },
};
