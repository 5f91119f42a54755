/**
 * Reading a loaded bundle: find a resource, resolve a ref (local first; `@goondan/base` for built-ins),
 * pick the Swarm to run, and the agents, tools, extensions (with merged config), model, entry paths and
 * system prompt that other layers need. Lookups on a valid bundle only fail for names that are not
 * there (ConfigError with a stable code).
 */
import { resolve as resolvePath } from "node:path";
import { ConfigError } from "../shared/errors.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../shared/json.ts";
import { closestFirst } from "./suggest.ts";
import { readPromptFile } from "./prompt-file.ts";
import { resolveBundlePath } from "./bundle-path.ts";
import {
  BUILTIN_PACKAGE,
  type AgentResource,
  type AnyResource,
  type Bundle,
  type ConnectionResource,
  type ExtensionResource,
  type Kind,
  type ModelResource,
  type ObjectRef,
  type ResourceOfKind,
  type SwarmResource,
  type ToolResource,
} from "./types.ts";

const isBuiltin = (resource: AnyResource) => resource.source.package === BUILTIN_PACKAGE;

/** The resource of `kind` named `name`: with `pkg = "@goondan/base"` a built-in, else local first, then built-in. */
export function findResource<K extends Kind>(
  bundle: Bundle,
  kind: K,
  name: string,
  pkg?: string,
): ResourceOfKind<K> | undefined {
  const matches = bundle.resources.filter(
    (resource): resource is ResourceOfKind<K> => resource.kind === kind && resource.metadata.name === name,
  );
  if (pkg === BUILTIN_PACKAGE) return matches.find(isBuiltin);
  // An npm package's resource, named by its package (npm-packages.ts); the bundle's own Package name finds its own.
  const fromPackage = pkg === undefined ? undefined : matches.find((resource) => resource.source.package === pkg);
  if (fromPackage !== undefined) return fromPackage;
  return matches.find((resource) => !isBuiltin(resource)) ?? matches.find(isBuiltin);
}

export function resolveRef<K extends Kind>(bundle: Bundle, ref: ObjectRef & { kind: K }): ResourceOfKind<K> {
  const found = findResource(bundle, ref.kind, ref.name, ref.package);
  if (found) return found;
  const names = bundle.resources
    .filter((resource) => resource.kind === ref.kind)
    .map((resource) => resource.metadata.name);
  throw new ConfigError("E_CONFIG_REF_NOT_FOUND", `${ref.kind}/${ref.name} not found`, {
    suggestion:
      names.length > 0
        ? `defined ${ref.kind.toLowerCase()}s: ${closestFirst(ref.name, names).join(", ")}`
        : `no ${ref.kind} is defined`,
  });
}

/** The bundle's only Swarm, or the one named; throws when none matches or several could. */
export function selectSwarm(bundle: Bundle, name?: string): SwarmResource {
  const swarms = bundle.resources.filter((resource): resource is SwarmResource => resource.kind === "Swarm");
  const names = swarms.map((swarm) => swarm.metadata.name);
  if (name !== undefined) {
    const swarm = swarms.find((candidate) => candidate.metadata.name === name);
    if (swarm) return swarm;
    throw new ConfigError("E_CONFIG_SWARM_NOT_FOUND", `Swarm/${name} not found`, {
      suggestion:
        names.length > 0 ? `defined swarms: ${closestFirst(name, names).join(", ")}` : "the bundle defines no Swarm",
    });
  }
  const [only, ...others] = swarms;
  if (!only)
    throw new ConfigError("E_CONFIG_SWARM_NOT_FOUND", "expected a Swarm in the bundle, found none", {
      suggestion: "add a kind: Swarm document",
    });
  if (others.length > 0) {
    throw new ConfigError(
      "E_CONFIG_SWARM_AMBIGUOUS",
      `expected one Swarm or --swarm <name>, found ${swarms.length}: ${names.join(", ")}`,
      {
        suggestion: `pass --swarm ${names[0]}`,
      },
    );
  }
  return only;
}

export function swarmAgents(bundle: Bundle, swarm: SwarmResource): AgentResource[] {
  return swarm.spec.agents.map((ref) => resolveRef(bundle, ref as ObjectRef & { kind: "Agent" }));
}

export function agentTools(bundle: Bundle, agent: AgentResource): ToolResource[] {
  return agent.spec.tools.map((ref) => resolveRef(bundle, ref as ObjectRef & { kind: "Tool" }));
}

/**
 * The Agent's Extensions with `config` = Extension.spec.config deep-merged with the Agent's item config. An Agent
 * with `requiredTools` that lists no `required-tools-guard` gets the built-in one last, as the public Goondan
 * runtime adds it, with those tools as `config.requiredTools` (one successful call of any of them is enough).
 */
export function agentExtensions(
  bundle: Bundle,
  agent: AgentResource,
): { resource: ExtensionResource; config: JsonObject }[] {
  const uses = agent.spec.extensions.map((use) => {
    const resource = resolveRef(bundle, use.ref as ObjectRef & { kind: "Extension" });
    return { resource, config: mergeConfig(resource.spec.config ?? {}, use.config ?? {}) };
  });
  const required = agent.spec.requiredTools ?? [];
  if (required.length === 0 || uses.some((use) => use.resource.metadata.name === REQUIRED_TOOLS_GUARD)) return uses;
  const guard = findResource(bundle, "Extension", REQUIRED_TOOLS_GUARD, BUILTIN_PACKAGE);
  if (guard === undefined) return uses;
  return [...uses, { resource: guard, config: { ...(guard.spec.config ?? {}), requiredTools: [...required] } }];
}

const REQUIRED_TOOLS_GUARD = "required-tools-guard";

export function agentModel(bundle: Bundle, agent: AgentResource): ModelResource {
  return resolveRef(bundle, agent.spec.modelConfig.modelRef as ObjectRef & { kind: "Model" });
}

/** The Connections bound to `swarm` (a Connection without swarmRef belongs to the first Swarm). */
export function swarmConnections(bundle: Bundle, swarm: SwarmResource): ConnectionResource[] {
  return bundle.resources.filter(
    (resource): resource is ConnectionResource =>
      resource.kind === "Connection" && resource.spec.swarmRef?.name === swarm.metadata.name,
  );
}

/** The absolute path of a Tool, Extension or Connector entry (built-ins resolve against src/base/). */
export function resolveEntry(resource: { spec: { entry: string }; source: { baseDir: string } }): string {
  return resolvePath(resource.source.baseDir, resource.spec.entry);
}

/** The Agent's system prompt: inline text, the systemRef file's content, or "" when it has none. */
export async function readSystemPrompt(bundle: Bundle, agent: AgentResource): Promise<string> {
  const { system, systemRef } = agent.spec.prompt;
  if (system !== undefined) return system;
  if (systemRef === undefined) return "";
  const resolved = resolveBundlePath({ baseDir: agent.source.baseDir ?? bundle.dir, relativePath: systemRef });
  if (!resolved.ok)
    throw new ConfigError(
      "E_CONFIG_ENTRY_OUTSIDE_BUNDLE",
      `expected the prompt file ${systemRef} to be relative and inside the bundle`,
    );
  const read = readPromptFile({ path: resolved.path, written: systemRef });
  if ("code" in read) throw new ConfigError(read.code, read.message);
  return read.text;
}

export function mergeConfig(base: JsonObject, override: JsonObject): JsonObject {
  const merged: JsonObject = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current: JsonValue | undefined = merged[key];
    merged[key] = isJsonObject(current) && isJsonObject(value) ? mergeConfig(current, value) : value;
  }
  return merged;
}
