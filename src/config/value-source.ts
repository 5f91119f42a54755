/**
 * ValueSource resolution and the env vars a Swarm needs. `{value}` is literal, `{valueFrom: {env}}` reads
 * the env var, and `{valueFrom: {secretRef: {ref: "Secret/x", key}}}` reads `GOONDAN_SECRET_X_KEY`
 * (upper-cased, non-alphanumerics as `_`). Only the resources the selected Swarm uses are required:
 * its agents' models, tools and extensions, and its Connections.
 */
import { isJsonObject, type JsonValue } from "../shared/json.ts";
import { formatPath } from "./issues.ts";
import { agentExtensions, agentModel, agentTools, swarmAgents, swarmConnections } from "./resolve.ts";
import type {
  AgentResource,
  AnyResource,
  Bundle,
  ConfigIssue,
  ConnectionResource,
  SwarmResource,
  ValueSource,
} from "./types.ts";
import { BUILTIN_PACKAGE, SIGNING_SECRET_KEY } from "./types.ts";
import { BUILTIN_LABEL } from "./builtin-package.ts";
import { relative } from "node:path";

export type Env = Record<string, string | undefined>;

/** The env var a secretRef reads: `Secret/slack-oauth` + `client_secret` → `GOONDAN_SECRET_SLACK_OAUTH_CLIENT_SECRET`. */
export function secretEnvName(secretRef: { ref: string; key: string }): string {
  const name = secretRef.ref.replace(/^Secret\//, "");
  return `GOONDAN_SECRET_${name}_${secretRef.key}`.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

/** The env var a ValueSource reads, or undefined for a literal. */
export function valueSourceEnvName(source: ValueSource): string | undefined {
  if ("value" in source) return undefined;
  return "env" in source.valueFrom ? source.valueFrom.env : secretEnvName(source.valueFrom.secretRef);
}

/** The value, or undefined when its env var is unset or empty. */
export function resolveValueSource(source: ValueSource, env: Env): string | undefined {
  if ("value" in source) return source.value;
  const name = valueSourceEnvName(source);
  const value = name === undefined ? undefined : env[name];
  return value === "" ? undefined : value;
}

/**
 * A resource's `config` with every ValueSource inside it replaced by its value (null when its env var is
 * unset), as tools and extensions receive it: they never need to read the environment themselves.
 */
export function resolveConfigValues(value: JsonValue, env: Env): JsonValue {
  if (isValueSource(value)) return resolveValueSource(value, env) ?? null;
  if (Array.isArray(value)) return value.map((item) => resolveConfigValues(item, env));
  if (isJsonObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveConfigValues(item, env)]));
  return value;
}

export function isValueSource(value: unknown): value is ValueSource {
  if (!isJsonObject(value)) return false;
  const keys = Object.keys(value);
  if (keys.length !== 1) return false;
  if (keys[0] === "value") return true;
  const from = value.valueFrom;
  return isJsonObject(from) && (typeof from.env === "string" || isJsonObject(from.secretRef));
}

export interface RequiredEnv {
  name: string;
  /** Where the ValueSource is written: `goondan.yaml#1.spec.apiKey`. */
  path: string;
}

/** Env vars the Swarm's resources read, with where each is asked for, in bundle order. */
export function requiredEnv(bundle: Bundle, swarm: SwarmResource): RequiredEnv[] {
  return collectEnv(bundle, swarmAgents(bundle, swarm), swarmConnections(bundle, swarm));
}

/** The env var names one agent's process needs (its model key, its tools' and extensions' config): nothing else is passed to it. */
export function agentRequiredEnvNames(bundle: Bundle, agent: AgentResource): string[] {
  return [...new Set(collectEnv(bundle, [agent], []).map(({ name }) => name))];
}

function collectEnv(bundle: Bundle, agents: AgentResource[], connections: ConnectionResource[]): RequiredEnv[] {
  const found: RequiredEnv[] = [];
  const seen = new Set<string>();
  const add = (resource: AnyResource, segments: (string | number)[], source: ValueSource) => {
    const name = valueSourceEnvName(source);
    if (name === undefined) return;
    const path = formatPath({ label: labelOf(bundle, resource), docIndex: resource.source.docIndex }, segments);
    const key = `${name} ${path}`;
    if (seen.has(key)) return;
    seen.add(key);
    found.push({ name, path });
  };
  const scan = (resource: AnyResource, segments: (string | number)[], value: JsonValue | ValueSource | undefined) => {
    if (value === undefined) return;
    if (isValueSource(value)) return add(resource, segments, value);
    if (Array.isArray(value)) value.forEach((item, index) => scan(resource, [...segments, index], item));
    else if (isJsonObject(value))
      for (const [key, item] of Object.entries(value)) scan(resource, [...segments, key], item);
  };
  for (const agent of agents) {
    const model = agentModel(bundle, agent);
    if (model.spec.apiKey) add(model, ["spec", "apiKey"], model.spec.apiKey);
    for (const tool of agentTools(bundle, agent)) scan(tool, ["spec", "config"], tool.spec.config);
    agent.spec.extensions.forEach((use, index) => scan(agent, ["spec", "extensions", index, "config"], use.config));
    for (const { resource } of agentExtensions(bundle, agent)) scan(resource, ["spec", "config"], resource.spec.config);
  }
  for (const connection of connections) {
    scan(connection, ["spec", "config"], connection.spec.config as JsonValue | undefined);
    for (const [key, source] of Object.entries(connection.spec.secrets ?? {})) {
      const fromVerify = key === SIGNING_SECRET_KEY && connection.spec.verify?.webhook !== undefined;
      add(connection, fromVerify ? ["spec", "verify", "webhook", "signingSecret"] : ["spec", "secrets", key], source);
    }
  }
  return found;
}

/** E_CONFIG_ENV_MISSING for every required env var that is unset or empty. */
export function missingEnvIssues(bundle: Bundle, swarm: SwarmResource, env: Env): ConfigIssue[] {
  return requiredEnv(bundle, swarm)
    .filter(({ name }) => env[name] === undefined || env[name] === "")
    .map(({ name, path }) => ({
      code: "E_CONFIG_ENV_MISSING",
      severity: "error" as const,
      message: `expected env var ${name} to be set, found it ${env[name] === "" ? "empty" : "unset"}`,
      path,
      suggestion: `export ${name}=… (or put it in the environment of goondan run)`,
    }));
}

function labelOf(bundle: Bundle, resource: AnyResource): string {
  if (resource.source.package === BUILTIN_PACKAGE) return BUILTIN_LABEL;
  return relative(bundle.dir, resource.source.file) || resource.source.file;
}
