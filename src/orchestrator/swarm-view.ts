/**
 * What the orchestrator needs to know of a validated bundle: the selected Swarm's name, instanceKey,
 * entry agent, member agents (with descriptions, for `agents__catalog`) and policy. Read straight from
 * the typed resources, so a reload only has to build a new view.
 */
import type { AgentResource, Bundle, SwarmPolicy } from "../config/types.ts";
import { selectSwarm } from "../config/resolve.ts";
import { swarmGraph, type SwarmGraph } from "../config/swarm-graph.ts";

export interface SwarmView {
  name: string;
  instanceKey: string;
  entryAgent: string;
  /** Member agents by name, in the Swarm's order. */
  agents: Map<string, { name: string; description?: string }>;
  policy: SwarmPolicy;
  bundleDir: string;
  /** The Swarm drawn from the bundle: agents, tools, who may call whom, connections (`GET /v1/swarm`). */
  graph: SwarmGraph;
}

/** The named Swarm, or the only one (ConfigError `E_CONFIG_SWARM_NOT_FOUND` / `E_CONFIG_SWARM_AMBIGUOUS` otherwise). */
export function swarmView(options: { bundle: Bundle; swarm?: string }): SwarmView {
  const swarm = selectSwarm(options.bundle, options.swarm);
  const agentResources = new Map(
    options.bundle.resources
      .filter((resource): resource is AgentResource => resource.kind === "Agent")
      .map((agent) => [agent.metadata.name, agent] as const),
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
    graph: swarmGraph(options.bundle, swarm.metadata.name),
  };
}
