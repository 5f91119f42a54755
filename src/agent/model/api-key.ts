/**
 * Resolves `Model.spec.apiKey` (a ValueSource) in the child without importing the config plane's validator
 * chain (src/config/value-source.ts pulls in the YAML loader and ajv schemas, ~35 ms of start-up). Same rules as
 * `resolveValueSource`: `{value}`, `{valueFrom: {env}}`, or `{valueFrom: {secretRef}}` read from
 * `GOONDAN_SECRET_<REF>_<KEY>`; an unset or empty variable is undefined. A test keeps the two in step.
 */
import type { ValueSource } from "../../config/types.ts";

export function apiKeyEnvName(source: ValueSource): string | undefined {
  if ("value" in source) return undefined;
  if ("env" in source.valueFrom) return source.valueFrom.env;
  const { ref, key } = source.valueFrom.secretRef;
  return `GOONDAN_SECRET_${ref.replace(/^Secret\//, "")}_${key}`.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

export function resolveApiKey(source: ValueSource, env: Record<string, string | undefined>): string | undefined {
  if ("value" in source) return source.value;
  const name = apiKeyEnvName(source);
  const value = name === undefined ? undefined : env[name];
  return value === "" ? undefined : value;
}
