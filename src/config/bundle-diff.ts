/**
 * What a reload has to restart: compares two validated bundles (plus the files that changed on disk)
 * and names the agents whose Agent, Model, Tool or Extension resources or files changed (plus every
 * member of a Swarm whose child-read policy changed: children take maxStepsPerTurn, requestTimeoutMs and
 * the shutdown grace at start), whether the Swarm changed, and which Connections need their connector
 * restarted. Pure: the caller says
 * which files belong to a resource (entry plus its local imports) through `filesOf`.
 */
import { isAbsolute, resolve } from "node:path";
import type { AgentResource, AnyResource, Bundle, Kind, ObjectRef } from "./types.ts";
import { BUILTIN_PACKAGE } from "./types.ts";

export interface BundleDiff {
  /** Agents to restart (changed, or removed from the bundle), sorted. */
  agents: string[];
  /**
   * Some Swarm spec changed (policy, agent list, entry agent): the orchestrator applies it at once; only a
   * change to a policy field children read (CHILD_POLICY_FIELDS) also puts the Swarm's agents in `agents`.
   */
  swarmChanged: boolean;
  /** Connections whose connector process must restart (Connection or Connector resource or files changed, or removed). */
  connections: string[];
}

export interface DiffBundlesOptions {
  previous: Bundle;
  next: Bundle;
  /** Absolute paths of files that changed on disk since `previous` was loaded. Default: none. */
  changedFiles?: readonly string[];
  /**
   * The absolute files a resource's code is made of. Default: `resourceFiles` (entry, prompt, cassette;
   * no imports). The watcher passes one that follows local imports.
   */
  filesOf?: (resource: AnyResource) => readonly string[];
}

const keyOf = (resource: { kind: string; metadata: { name: string }; source: { package?: string } }): string =>
  `${resource.source.package === BUILTIN_PACKAGE ? `${BUILTIN_PACKAGE}:` : ""}${resource.kind}/${resource.metadata.name}`;

const absolute = (baseDir: string, path: string): string => (isAbsolute(path) ? path : resolve(baseDir, path));

/** A resource's own files: Tool/Extension/Connector entry, Agent `prompt.systemRef`, replay Model cassette. */
export function resourceFiles(resource: AnyResource): string[] {
  const baseDir = resource.source.baseDir;
  switch (resource.kind) {
    case "Tool":
    case "Extension":
    case "Connector":
      return [absolute(baseDir, resource.spec.entry)];
    case "Agent":
      return resource.spec.prompt.systemRef ? [absolute(baseDir, resource.spec.prompt.systemRef)] : [];
    case "Model": {
      const cassette = resource.spec.options?.cassette;
      return typeof cassette === "string" ? [absolute(baseDir, cassette)] : [];
    }
    default:
      return [];
  }
}

/** Finds the resource a ref points at: a local one first unless the ref names `@goondan/base`, then a built-in. */
export function findResource(bundle: Bundle, ref: ObjectRef): AnyResource | undefined {
  const matches = bundle.resources.filter(
    (resource) => resource.kind === ref.kind && resource.metadata.name === ref.name,
  );
  if (ref.package === BUILTIN_PACKAGE) return matches.find((resource) => resource.source.package === BUILTIN_PACKAGE);
  return matches.find((resource) => resource.source.package !== BUILTIN_PACKAGE) ?? matches[0];
}

/** The resources an agent's behaviour depends on: itself, its Model, its Tools and its Extensions. */
export function agentDependencies(bundle: Bundle, agent: AgentResource): AnyResource[] {
  const refs: ObjectRef[] = [
    agent.spec.modelConfig.modelRef,
    ...agent.spec.tools,
    ...agent.spec.extensions.map((use) => use.ref),
  ];
  const found = refs
    .map((ref) => findResource(bundle, ref))
    .filter((resource): resource is AnyResource => resource !== undefined);
  return [agent, ...found];
}

/** Spec and metadata as a comparable string; the source location is left out on purpose. */
const fingerprint = (resource: AnyResource | undefined): string =>
  resource === undefined
    ? ""
    : JSON.stringify(
        { metadata: resource.metadata, spec: resource.spec, package: resource.source.package ?? null },
        sortedKeys,
      );

function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/** Swarm policy a child reads when it starts (src/agent/instance/create-agent-instance.ts): changing it needs a restart. */
export const CHILD_POLICY_FIELDS = ["maxStepsPerTurn", "requestTimeoutMs", "shutdown"] as const;

const childPolicy = (swarm: AnyResource | undefined): string =>
  swarm?.kind !== "Swarm"
    ? ""
    : JSON.stringify(
        CHILD_POLICY_FIELDS.map((field) => swarm.spec.policy[field]),
        sortedKeys,
      );

function indexByKey(bundle: Bundle): Map<string, AnyResource> {
  return new Map(bundle.resources.map((resource) => [keyOf(resource), resource]));
}

function ofKind<K extends Kind>(bundle: Bundle, kind: K): Extract<AnyResource, { kind: K }>[] {
  return bundle.resources.filter((resource): resource is Extract<AnyResource, { kind: K }> => resource.kind === kind);
}

export function diffBundles(options: DiffBundlesOptions): BundleDiff {
  const { previous, next } = options;
  const filesOf = options.filesOf ?? resourceFiles;
  const changed = new Set((options.changedFiles ?? []).map((file) => resolve(file)));
  const before = indexByKey(previous);
  const after = indexByKey(next);

  const resourceChanged = (resource: AnyResource): boolean =>
    fingerprint(before.get(keyOf(resource))) !== fingerprint(resource) ||
    filesOf(resource).some((file) => changed.has(resolve(file)));

  const agents = new Set<string>();
  for (const agent of ofKind(next, "Agent")) {
    const beforeAgent = before.get(keyOf(agent));
    if (beforeAgent === undefined) continue; // new agent: nothing runs yet, it spawns on demand
    const dependenciesNow = agentDependencies(next, agent);
    const dependenciesBefore = agentDependencies(previous, beforeAgent as AgentResource);
    const sameSet = dependenciesNow.map(keyOf).join(",") === dependenciesBefore.map(keyOf).join(",");
    if (!sameSet || dependenciesNow.some(resourceChanged)) agents.add(agent.metadata.name);
  }
  for (const agent of ofKind(previous, "Agent")) {
    if (!after.has(keyOf(agent))) agents.add(agent.metadata.name);
  }

  for (const swarm of ofKind(next, "Swarm")) {
    const swarmBefore = before.get(keyOf(swarm));
    if (swarmBefore === undefined || childPolicy(swarmBefore) === childPolicy(swarm)) continue;
    for (const ref of swarm.spec.agents) agents.add(ref.name);
  }

  const swarmNames = new Set([...ofKind(previous, "Swarm"), ...ofKind(next, "Swarm")].map(keyOf));
  const swarmChanged = [...swarmNames].some((key) => fingerprint(before.get(key)) !== fingerprint(after.get(key)));

  const connections = new Set<string>();
  for (const connection of ofKind(next, "Connection")) {
    const beforeConnection = before.get(keyOf(connection));
    const connector = findResource(next, connection.spec.connectorRef);
    const connectorBefore = findResource(previous, connection.spec.connectorRef);
    if (
      beforeConnection === undefined ||
      resourceChanged(connection) ||
      connector === undefined ||
      fingerprint(connectorBefore) !== fingerprint(connector) ||
      resourceChanged(connector)
    ) {
      connections.add(connection.metadata.name);
    }
  }
  for (const connection of ofKind(previous, "Connection")) {
    if (!after.has(keyOf(connection))) connections.add(connection.metadata.name);
  }

  return { agents: [...agents].sort(), swarmChanged, connections: [...connections].sort() };
}

/** The agents a reload restarts: `diffBundles(options).agents`. */
export function affectedAgents(options: DiffBundlesOptions): string[] {
  return diffBundles(options).agents;
}
