/**
 * How resources fit together once refs resolve: a Swarm's entryAgent is one of its agents; a Connection
 * without swarmRef belongs to the first Swarm (its ingress rules are checked by check-ingress.ts); an
 * Agent's requiredTools name tools it has; no agent is listed twice in a Swarm, no Tool twice in an Agent.
 */
import type { IssueList } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import type { RefIndex } from "./check-refs.ts";
import type { AgentResource, SwarmResource, ToolResource } from "./types.ts";

export function checkWiring(options: { resources: LoadedResource[]; index: RefIndex; issues: IssueList }): void {
  const { resources, index, issues } = options;
  const firstSwarm = resources.find((loaded) => loaded.resource.kind === "Swarm")?.resource as
    | SwarmResource
    | undefined;
  for (const loaded of resources) {
    const { resource } = loaded;
    if (resource.kind === "Swarm") {
      checkSwarm(loaded, resource, issues);
      checkListedOnce({
        loaded,
        issues,
        names: resource.spec.agents.map((ref) => ref.name),
        field: "agents",
        what: "agent",
      });
    }
    if (resource.kind === "Agent") {
      checkRequiredTools({ loaded, agent: resource, index, issues });
      checkListedOnce({
        loaded,
        issues,
        names: resource.spec.tools.map((ref) => ref.name),
        field: "tools",
        what: "Tool (its LLM tool names would clash)",
      });
    }
    if (resource.kind === "Connection") {
      if (!resource.spec.swarmRef && firstSwarm)
        resource.spec.swarmRef = { kind: "Swarm", name: firstSwarm.metadata.name };
    }
  }
}

function checkSwarm(loaded: LoadedResource, swarm: SwarmResource, issues: IssueList): void {
  const entry = swarm.spec.entryAgent.name;
  if (entry === "" || swarm.spec.agents.some((agent) => agent.name === entry)) return;
  issues.at(loaded.site, ["spec", "entryAgent"], {
    code: "E_CONFIG_ENTRY_AGENT_NOT_LISTED",
    message: `expected entryAgent to be one of spec.agents (${swarm.spec.agents.map((agent) => agent.name).join(", ") || "none"}), found Agent/${entry}`,
    suggestion: `add "Agent/${entry}" to spec.agents`,
  });
}

/** Refs listed twice: `names` follow the written list, since invalid refs were reported and dropped before. */
function checkListedOnce(options: {
  loaded: LoadedResource;
  issues: IssueList;
  names: string[];
  field: "agents" | "tools";
  what: string;
}): void {
  const seen = new Set<string>();
  const uses = options.loaded.refs.filter((use) => use.segments[1] === options.field && use.segments.length === 3);
  options.names.forEach((name, position) => {
    if (!seen.has(name)) {
      seen.add(name);
      return;
    }
    const segments = uses[position]?.segments ?? ["spec", options.field];
    options.issues.at(options.loaded.site, segments, {
      code: "E_CONFIG_DUPLICATE_NAME",
      message: `expected each ${options.what} once in spec.${options.field}, found "${name}" again`,
      suggestion: "remove the repeated entry",
    });
  });
}

function checkRequiredTools(options: {
  loaded: LoadedResource;
  agent: AgentResource;
  index: RefIndex;
  issues: IssueList;
}): void {
  const { loaded, agent, index, issues } = options;
  const available = new Set<string>();
  for (const ref of agent.spec.tools) {
    const key = `Tool/${ref.name}`;
    const tool = (ref.package ? index.builtin.get(key) : index.local.get(key))?.resource as ToolResource | undefined;
    for (const item of tool?.spec.exports ?? []) available.add(`${ref.name}__${item.name}`);
  }
  (agent.spec.requiredTools ?? []).forEach((name, position) => {
    if (available.has(name)) return;
    issues.at(loaded.site, ["spec", "requiredTools", position], {
      code: "W_CONFIG_REQUIRED_TOOL_UNKNOWN",
      message: `expected a tool name of this agent's Tools ({tool}__{export}), found "${name}" (an extension may still register it)`,
    });
  });
}
