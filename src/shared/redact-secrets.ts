/**
 * Replaces known secret values in free text or in a JSON value before it leaves the process that holds them: an MCP
 * server's resolved env and header values in its stderr or an error message, an agent child's keys in the tool
 * arguments and results its runtime events carry. The logger redacts secret *fields*; text can only be cleaned by
 * the values themselves. Values shorter than MIN_SECRET_LENGTH are not looked for (they would mangle ordinary text).
 */
import { isJsonObject, type JsonValue } from "./json.ts";

export const REDACTED = "[redacted]";
export const MIN_SECRET_LENGTH = 6;

export function redactSecrets(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) if (secret !== "" && clean.includes(secret)) clean = clean.replaceAll(secret, REDACTED);
  return clean;
}

/** `value` with every string (and object key) in it redacted; the same value when there is nothing to look for. */
export function redactJson(value: JsonValue, secrets: readonly string[]): JsonValue {
  if (secrets.length === 0) return value;
  if (typeof value === "string") return redactSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactJson(item, secrets));
  if (isJsonObject(value))
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redactSecrets(key, secrets), redactJson(item, secrets)]),
    );
  return value;
}
