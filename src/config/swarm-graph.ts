/**
 * The selected Swarm as a graph a person can look at before any traffic: its agents (the entry agent marked, each
 * with its description, model and tools), who may call whom (an agent holding the built-in `agents` tool may ask
 * every other member), and its connections (each with its connector and the agents its ingress rules route to; a
 * rule without an agent goes to the entry agent). `GET /v1/swarm` serves it; the studio draws it. Drawn from what the
 * bundle holds: a reference it cannot resolve is left out rather than thrown (validation reports those).
 */
import { findResource, selectSwarm, swarmConnections } from "./resolve.ts";
import { BUILTIN_PACKAGE, type AgentResource, type Bundle, type ToolResource } from "./types.ts";

export interface SwarmGraph {
  name: string;
  entryAgent: string;
  agents: Array<{ name: string; entry: boolean; description?: string; model: string; tools: string[] }>;
  /** `from` may send requests to `to` (`agents__request` / `agents__send`). */
  calls: Array<{ from: string; to: string }>;
  connections: Array<{ name: string; connector: string; routesTo: string[] }>;
}

export function swarmGraph(bundle: Bundle, swarmName?: string): SwarmGraph {
  const swarm = selectSwarm(bundle, swarmName);
  const members = swarm.spec.agents
    .map((ref) => findResource(bundle, "Agent", ref.name, ref.package))
    .filter((agent): agent is AgentResource => agent !== undefined);
  const entryAgent = swarm.spec.entryAgent.name;
  const toolsOf = (agent: AgentResource) =>
    agent.spec.tools
      .map((ref) => findResource(bundle, "Tool", ref.name, ref.package))
      .filter((tool): tool is ToolResource => tool !== undefined);
  const canAsk = (agent: AgentResource) =>
    toolsOf(agent).some((tool) => tool.metadata.name === "agents" && tool.source.package === BUILTIN_PACKAGE);
  return {
    name: swarm.metadata.name,
    entryAgent,
    agents: members.map((agent) => ({
      name: agent.metadata.name,
      entry: agent.metadata.name === entryAgent,
      ...(agent.spec.description === undefined ? {} : { description: agent.spec.description }),
      model: findResource(bundle, "Model", agent.spec.modelConfig.modelRef.name)?.spec.model ?? "",
      tools: toolsOf(agent).flatMap((tool) => tool.spec.exports.map((item) => `${tool.metadata.name}__${item.name}`)),
    })),
    calls: members
      .filter(canAsk)
      .flatMap((from) =>
        members
          .filter((to) => to.metadata.name !== from.metadata.name)
          .map((to) => ({ from: from.metadata.name, to: to.metadata.name })),
      ),
    connections: swarmConnections(bundle, swarm).map((connection) => ({
      name: connection.metadata.name,
      connector: connection.spec.connectorRef.name,
      routesTo: [...new Set(connection.spec.ingress.rules.map((rule) => rule.route.agentRef?.name ?? entryAgent))],
    })),
  };
}
