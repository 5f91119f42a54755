/**
 * The Agents view's graph model (src/http/studio/swarm-layout.ts): the cluster nodes of each agent are read from the
 * rows of GET /v1/processes, and each node gets a badge inside its agent's box, the box grown to hold them, while a
 * swarm off a cluster is drawn without any.
 */
import { describe, expect, it } from "bun:test";
import type { SwarmGraph } from "../../src/config/swarm-graph.ts";
import { agentBox, clusterNodesByAgent, layoutSwarm } from "../../src/http/studio/swarm-layout.ts";

const graph: SwarmGraph = {
  name: "duo",
  entryAgent: "coordinator",
  agents: [
    { name: "coordinator", entry: true, model: "gpt-x", tools: ["agents__request"] },
    { name: "worker", entry: false, model: "gpt-x", tools: ["slow__sleep"] },
  ],
  calls: [{ from: "coordinator", to: "worker" }],
  connections: [{ name: "cli", connector: "cli", routesTo: ["coordinator"] }],
};

describe("the cluster nodes of the agents", () => {
  it("are read from the agent rows of /v1/processes, each node once and sorted", () => {
    expect(
      clusterNodesByAgent([
        { kind: "orchestrator", node: "node-a" },
        { kind: "agent", agent: "worker", node: "node-b" },
        { kind: "agent", agent: "worker", node: "node-a" },
        { kind: "agent", agent: "worker", node: "node-b" },
        { kind: "agent", agent: "coordinator", node: "node-a" },
        { kind: "connector" },
      ]),
    ).toEqual({ worker: ["node-a", "node-b"], coordinator: ["node-a"] });
  });

  it("are none off a cluster, where the rows carry no node", () => {
    expect(clusterNodesByAgent([{ kind: "agent", agent: "worker" }])).toEqual({});
  });
});

describe("the laid-out swarm graph", () => {
  it("gives each cluster node a badge inside its agent's box, one after the other", () => {
    const laid = layoutSwarm({ graph, narrow: false, clusterNodes: { worker: ["node-a", "node-with-a-long-name"] } });
    const worker = laid.node("agent:worker").box!;
    expect(worker.badges.map((badge) => badge.node)).toEqual(["node-a", "node-with-a-long-name"]);
    const [first, second] = worker.badges;
    expect(second!.x).toBeGreaterThan(first!.x + first!.width);
    for (const badge of worker.badges) {
      expect(badge.x + badge.width).toBeLessThanOrEqual(worker.width);
      expect(badge.y + badge.height).toBeLessThanOrEqual(worker.height);
    }
    // Below the model and tool lines, clear of the last one's baseline (40 + (lines - 1) * 18) and its descenders.
    expect(first!.y).toBeGreaterThanOrEqual(40 + (worker.lines.length - 1) * 18 + 4);
    expect(laid.node("agent:coordinator").box!.badges).toEqual([]);
  });

  it("grows an agent's box to hold its badges, and lays the graph out around it", () => {
    const worker = graph.agents[1]!;
    const plain = agentBox(worker, []);
    const marked = agentBox(worker, ["node-with-a-very-long-name-indeed", "node-b"]);
    expect(marked.height).toBeGreaterThan(plain.height);
    expect(marked.width).toBeGreaterThan(plain.width);
    const laid = layoutSwarm({ graph, narrow: false, clusterNodes: { worker: marked.badges.map((b) => b.node) } });
    expect(laid.node("agent:worker").width).toBe(marked.width);
    expect(laid.graph().width!).toBeGreaterThanOrEqual(marked.width);
  });

  it("draws the bundle's agents, connections, calls and routes, left to right or top down", () => {
    const wide = layoutSwarm({ graph, narrow: false });
    expect(wide.nodes().sort()).toEqual(["agent:coordinator", "agent:worker", "connection:cli"]);
    expect(
      wide
        .edges()
        .map((ref) => `${wide.edge(ref).kind} ${ref.v}->${ref.w}`)
        .sort(),
    ).toEqual(["call agent:coordinator->agent:worker", "route connection:cli->agent:coordinator"]);
    expect(wide.node("agent:worker").x).toBeGreaterThan(wide.node("agent:coordinator").x);
    const narrow = layoutSwarm({ graph, narrow: true });
    expect(narrow.node("agent:worker").y).toBeGreaterThan(narrow.node("agent:coordinator").y);
  });
});
