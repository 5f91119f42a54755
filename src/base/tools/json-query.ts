/**
 * Built-in `json-query`: query, pick, count and flatten over JSON given as `data` (a value) or `json` (text),
 * using the path language of json-path.ts.
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
  if (hasData) return input.data ?? null;
  try {
    return JSON.parse(input.json as string) as JsonValue;
  } catch (error) {
    throw new ToolFault("E_JSON_QUERY_PARSE", `json is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
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
    const data = inputData(input);
    const paths = (Array.isArray(input.paths) ? input.paths : []).map(String);
    const pickOne = (value: JsonValue): JsonObject => {
      const out: JsonObject = {};
      for (const path of paths) {
        const selected = select(value, path);
        if (selected.found) Object.defineProperty(out, path, { value: selected.value, enumerable: true, writable: true, configurable: true });
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
    throw new ToolFault("E_JSON_QUERY_NOT_COUNTABLE", `the value at ${JSON.stringify(path)} is a ${value === null ? "null" : typeof value}, which has no count`);
  },
  flatten: (_ctx, input) => {
    const path = String(input.path ?? "");
    const depth = typeof input.depth === "number" ? Math.min(100, Math.max(1, Math.trunc(input.depth))) : 1;
    const { found, value } = select(inputData(input), path);
    if (!found || !Array.isArray(value)) throw new ToolFault("E_JSON_QUERY_NOT_ARRAY", `the value at ${JSON.stringify(path)} is not an array`);
    const flat = (value as unknown[]).flat(depth) as JsonValue[];
    return { value: flat, count: flat.length };
  },
};
