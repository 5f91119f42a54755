/**
 * What the orchestrator needs to know of a validated bundle: the selected Swarm's name, instanceKey,
 * entry agent, member agents (with descriptions, for `agents__catalog`) and policy. Read straight from
 * the typed resources, so a reload only has to build a new view.
 */
import type { AgentResource, Bundle, SwarmPolicy, SwarmResource } from "../config/types.ts";
import { UsageError } from "../shared/errors.ts";

export interface SwarmView {
  name: string;
  instanceKey: string;
  entryAgent: string;
  /** Member agents by name, in the Swarm's order. */
  agents: Map<string, { name: string; description?: string }>;
  policy: SwarmPolicy;
  bundleDir: string;
}

/** The named Swarm, or the only one; `E_SWARM_NOT_FOUND` / `E_SWARM_AMBIGUOUS` otherwise. */
export function swarmView(options: { bundle: Bundle; swarm?: string }): SwarmView {
  const swarms = options.bundle.resources.filter((resource): resource is SwarmResource => resource.kind === "Swarm");
  const names = swarms.map((swarm) => swarm.metadata.name);
  let swarm: SwarmResource | undefined;
  if (options.swarm !== undefined) {
    swarm = swarms.find((candidate) => candidate.metadata.name === options.swarm);
    if (!swarm) throw new UsageError("E_SWARM_NOT_FOUND", `Swarm/${options.swarm} not found; defined swarms: ${names.join(", ") || "none"}`);
  } else if (swarms.length === 1) {
    swarm = swarms[0];
  } else {
    throw new UsageError(swarms.length === 0 ? "E_SWARM_NOT_FOUND" : "E_SWARM_AMBIGUOUS", swarms.length === 0 ? "the bundle defines no Swarm" : `the bundle defines several swarms (${names.join(", ")})`, {
      suggestion: "pick one with --swarm NAME",
    });
  }
  if (!swarm) throw new UsageError("E_SWARM_NOT_FOUND", "the bundle defines no Swarm");
  const agentResources = new Map(
    options.bundle.resources.filter((resource): resource is AgentResource => resource.kind === "Agent").map((agent) => [agent.metadata.name, agent] as const),
  );
  const agents = new Map<string, { name: string; description?: string }>();
  for (const ref of swarm.spec.agents) {
    const description = agentResources.get(ref.name)?.spec.description;
    agents.set(ref.name, description === undefined ? { name: ref.name } : { name: ref.name, description });
  }
  return {
    name: swarm.metadata.name,
    instanceKey: swarm.spec.instanceKey || swarm.metadata.name,
    entryAgent: swarm.spec.entryAgent.name,
    agents,
    policy: swarm.spec.policy,
    bundleDir: options.bundle.dir,
  };
}
