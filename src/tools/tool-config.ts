/**
 * Typed reads of a Tool's `spec.config` (handed to handlers as `ctx.config`) with defaults, so built-in
 * tools never trust a config value's type.
 */
import type { JsonObject } from "../shared/json.ts";

export function configNumber(config: JsonObject, key: string, fallback: number): number {
  const value = config[key];
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

export function configBoolean(config: JsonObject, key: string, fallback: boolean): boolean {
  const value = config[key];
  return typeof value === "boolean" ? value : fallback;
}

export function configString(config: JsonObject, key: string): string | undefined {
  const value = config[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}
