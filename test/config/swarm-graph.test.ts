/**
 * swarmGraph draws the Swarm from the bundle alone: its members with their models and tools and the entry agent
 * marked, an edge from each agent holding the built-in agents tool to every other member, and each connection with
 * its connector and the agents its ingress rules route to (the entry agent for a rule that names none).
 */
import { describe, expect, it } from "bun:test";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { swarmGraph } from "../../src/config/swarm-graph.ts";

// The graph needs no tool module loaded: the modules are not imported (that check is load-bundle's own tests').
const bundle = (name: string) =>
  loadBundleOrThrow(new URL(`../fixtures/bundles/${name}`, import.meta.url).pathname, { checkModules: false });

describe("swarmGraph", () => {
  it("draws the agents, who may call whom, and the connections with where they route", async () => {
    const graph = swarmGraph(await bundle("every-kind"));
    expect(graph.name).toBe("team");
    expect(graph.entryAgent).toBe("planner");
    expect(graph.agents.map(({ name, entry, model }) => ({ name, entry, model }))).toEqual([
      { name: "planner", entry: true, model: "claude-sonnet-4-5" },
      { name: "writer", entry: false, model: "demo" },
    ]);
    expect(graph.agents[0]!.description).toBe("Plans and delegates");
    expect(graph.agents[0]!.tools).toContain("agents__request");
    expect(graph.agents[0]!.tools).toContain("bash__exec");
    expect(graph.calls).toEqual([{ from: "planner", to: "writer" }]);
    expect(graph.connections).toEqual([{ name: "inbox-to-team", connector: "inbox", routesTo: ["writer", "planner"] }]);
  });

  it("gives an agent without the agents tool no outgoing edge", async () => {
    const graph = swarmGraph(await bundle("channels-swarm"));
    expect(new Set(graph.calls.map((call) => call.from))).toEqual(new Set(["coordinator"]));
    expect(graph.calls.map((call) => call.to).sort()).toEqual(["memory", "observer", "worker"]);
  });
});
