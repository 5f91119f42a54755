/**
 * The Agents view's graph model, apart from the page so a unit test can read it: the swarm of `GET /v1/swarm` laid
 * out by dagre (left to right, or top down on a narrow screen), each agent sized to its lines (model, up to five tools)
 * and, on a cluster, to a row of badges naming the nodes its processes run on, read from `GET /v1/processes` rows
 * (`clusterNodesByAgent`). Connections are nodes too, with an edge to each agent they route to; `calls` are the
 * edges between agents. agents-view.js draws what this returns.
 */
import { Graph, layout } from "@dagrejs/dagre";
import type { SwarmGraph } from "../../config/swarm-graph.ts";

/** Widths of a character of the node's monospace lines and of its bold title (px, generous). */
const CHAR = 7.6;
const TITLE_CHAR = 9;
export const LINE = 18;
const MAX_TOOLS = 5;
/** A node badge: its height, its padding each side, and the gap between two. */
const BADGE = { height: 18, pad: 7, gap: 6 };
const PAD = 12;

export type SwarmAgent = SwarmGraph["agents"][number];

/** A cluster node's badge inside its agent's box, at `x`, `y` from the box's top left. */
export interface NodeBadge {
  node: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface AgentBox {
  agent: SwarmAgent;
  lines: string[];
  badges: NodeBadge[];
  width: number;
  height: number;
}

/** A row of `GET /v1/processes`: a cluster node's rows each carry their `node`. */
export interface ProcessRow {
  kind: string;
  agent?: string;
  node?: string;
}

/** The cluster nodes each agent's processes run on, sorted; an agent with no row naming a node is absent. */
export function clusterNodesByAgent(rows: readonly ProcessRow[]): Record<string, string[]> {
  const byAgent = new Map<string, Set<string>>();
  for (const row of rows) {
    if (row.kind !== "agent" || row.agent === undefined || !row.node) continue;
    const nodes = byAgent.get(row.agent) ?? new Set<string>();
    byAgent.set(row.agent, nodes.add(row.node));
  }
  return Object.fromEntries([...byAgent].map(([agent, nodes]) => [agent, [...nodes].sort()]));
}

function agentLines(agent: SwarmAgent): string[] {
  const tools = agent.tools.slice(0, MAX_TOOLS);
  const more = agent.tools.length - tools.length;
  return [agent.model, ...tools, ...(more > 0 ? [`+${more} more`] : [])];
}

/** An agent's box: its title, its lines, then its node badges in one row below them. */
export function agentBox(agent: SwarmAgent, nodes: readonly string[]): AgentBox {
  const lines = agentLines(agent);
  const title = (agent.name.length + (agent.entry ? 8 : 0)) * TITLE_CHAR;
  const badgeTop = 34 + lines.length * LINE - 4;
  const badges: NodeBadge[] = [];
  let x = PAD;
  for (const node of nodes) {
    const width = (node.length + 2) * CHAR + BADGE.pad * 2;
    badges.push({ node, x, y: badgeTop, width, height: BADGE.height });
    x += width + BADGE.gap;
  }
  const badgeRow = badges.length === 0 ? 0 : x - BADGE.gap + PAD;
  const width = Math.max(title + 2 * PAD + 4, ...lines.map((line) => line.length * CHAR + 2 * PAD + 4), badgeRow);
  const height = 34 + lines.length * LINE + (badges.length === 0 ? 0 : BADGE.height + 6);
  return { agent, lines, badges, width, height };
}

export interface LaidNode {
  x: number;
  y: number;
  width: number;
  height: number;
  box?: AgentBox;
  connection?: SwarmGraph["connections"][number];
}

export interface LaidEdge {
  kind: "route" | "call";
  points: Array<{ x: number; y: number }>;
}

/** The graph's own label: how it is laid out, and after `layout` its size. */
export interface LaidGraph {
  rankdir: "LR" | "TB";
  nodesep: number;
  ranksep: number;
  marginx: number;
  marginy: number;
  width?: number;
  height?: number;
}

/** The graph laid out: agent nodes are `agent:<name>`, connection nodes `connection:<name>`. */
export function layoutSwarm(options: {
  graph: SwarmGraph;
  narrow: boolean;
  /** The cluster nodes per agent (`clusterNodesByAgent`); empty off a cluster. */
  clusterNodes?: Record<string, string[]>;
}): Graph<LaidGraph, LaidNode, LaidEdge> {
  const { graph, narrow } = options;
  const g = new Graph<LaidGraph, LaidNode, LaidEdge>({ multigraph: true });
  g.setGraph({ rankdir: narrow ? "TB" : "LR", nodesep: 28, ranksep: narrow ? 50 : 70, marginx: 12, marginy: 12 });
  for (const agent of graph.agents) {
    const box = agentBox(agent, options.clusterNodes?.[agent.name] ?? []);
    g.setNode(`agent:${agent.name}`, { x: 0, y: 0, width: box.width, height: box.height, box });
  }
  for (const connection of graph.connections) {
    const width = Math.max(connection.name.length * TITLE_CHAR, (connection.connector.length + 10) * CHAR) + 28;
    g.setNode(`connection:${connection.name}`, { x: 0, y: 0, width, height: 48, connection });
    for (const agent of connection.routesTo)
      g.setEdge(`connection:${connection.name}`, `agent:${agent}`, { kind: "route", points: [] }, `r:${agent}`);
  }
  for (const call of graph.calls)
    g.setEdge(`agent:${call.from}`, `agent:${call.to}`, { kind: "call", points: [] }, "c");
  layout(g);
  return g;
}
