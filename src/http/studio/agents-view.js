// Agents: the swarm as the bundle declares it (GET /v1/swarm), laid out by dagre before any traffic: the entry agent,
// each agent's model and tools, who may call whom, and the connections that route events in. Live work is drawn
// over it from GET /v1/watch: an agent running a turn glows, and a request from one agent to another lights the
// edge between them and counts it. On a cluster, each agent carries a badge per node its processes run on (from the
// rows of GET /v1/processes). The layout and the boxes' sizes are swarm-layout.ts.
import { useEffect, useMemo, useState } from "preact/hooks";
import { processes as loadProcesses, recentEvents, swarm as loadSwarm, watch } from "./api.js";
import { every, html, link } from "./html.js";
import { clusterNodesByAgent, LINE, layoutSwarm } from "./swarm-layout.ts";

const path = (points) => points.map((point, index) => `${index === 0 ? "M" : "L"}${point.x},${point.y}`).join(" ");

const NARROW = "(max-width: 700px)";

/** Whether the screen is narrow, kept up as it changes. */
function useNarrow() {
  const [narrow, setNarrow] = useState(matchMedia(NARROW).matches);
  useEffect(() => {
    const query = matchMedia(NARROW);
    const changed = () => setNarrow(query.matches);
    query.addEventListener("change", changed);
    return () => query.removeEventListener("change", changed);
  }, []);
  return narrow;
}

/**
 * Work from runtime events: who is in a turn, and requests between agents (by the tool span they came from). The
 * swarm's recent events are read first (their requests counted, not lit), then the live ones from their cursor on.
 */
function useLiveFlows() {
  const [busy, setBusy] = useState({});
  const [flows, setFlows] = useState({});
  useEffect(() => {
    const controller = new AbortController();
    const requestSpans = new Map();
    const turns = new Map();
    const observe = (event) => {
      if (event.type === "tool.called" && /^agents__(request|send)$/.test(event.toolName ?? ""))
        requestSpans.set(event.spanId, event.agent);
      if (event.type === "turn.started") {
        turns.set(event.spanId, event.agent);
        setBusy((was) => ({ ...was, [event.agent]: (was[event.agent] ?? 0) + 1 }));
        const from = requestSpans.get(event.parentSpanId);
        if (from !== undefined) {
          const key = `${from}->${event.agent}`;
          setFlows((was) => ({
            ...was,
            [key]: { count: (was[key]?.count ?? 0) + 1, at: Date.parse(event.at), traceId: event.traceId },
          }));
        }
      }
      if (/^turn\.(completed|failed)$/.test(event.type) && turns.has(event.spanId)) {
        turns.delete(event.spanId);
        setBusy((was) => ({ ...was, [event.agent]: Math.max(0, (was[event.agent] ?? 1) - 1) }));
      }
    };
    recentEvents()
      .then(({ events, cursor }) => {
        for (const event of events) observe(event);
        return watch(observe, controller.signal, cursor);
      })
      .catch(() => {});
    return () => controller.abort();
  }, []);
  return { busy, flows };
}

export function AgentsView() {
  const [graph, setGraph] = useState(undefined);
  const [error, setError] = useState("");
  const [clusterNodes, setClusterNodes] = useState({});
  const { busy, flows } = useLiveFlows();
  const narrow = useNarrow();
  useEffect(() => {
    loadSwarm().then(setGraph, (failure) => setError(failure.message));
    return every(3000, async () => {
      const { processes } = await loadProcesses();
      const fresh = clusterNodesByAgent(processes);
      // A new object only when the nodes changed, so the graph is laid out again only then.
      setClusterNodes((was) => (JSON.stringify(was) === JSON.stringify(fresh) ? was : fresh));
    });
  }, []);
  const laid = useMemo(
    () => (graph ? layoutSwarm({ graph, narrow, clusterNodes }) : undefined),
    [graph, narrow, clusterNodes],
  );
  const onCluster = Object.keys(clusterNodes).length > 0;
  if (error) return html`<section class="view"><h1>Agents</h1><p class="error" role="alert">${error}</p></section>`;
  if (!laid) return html`<section class="view"><h1>Agents</h1><p class="muted">Loading the swarm…</p></section>`;
  const { width, height } = laid.graph();
  const now = Date.now();
  return html`<section class="view agents" aria-labelledby="agents-title">
    <div class="view-head">
      <h1 id="agents-title">Agents <span class="muted">· swarm ${graph.name}</span></h1>
      <a class="button" href=${link("threads", graph.entryAgent, graph.instanceKey)}>Talk to ${graph.entryAgent}</a>
    </div>
    <div class="graph-wrap" tabindex="0" role="region" aria-label="Swarm graph">
      <svg id="graph" viewBox=${`0 0 ${width} ${height}`} width=${width} height=${height} role="img"
        aria-label=${`${graph.agents.length} agents; entry ${graph.entryAgent}`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" class="arrow-head" />
          </marker>
        </defs>
        ${laid.edges().map((ref) => {
          const edge = laid.edge(ref);
          const from = ref.v.replace(/^\w+:/, "");
          const to = ref.w.replace(/^\w+:/, "");
          const flow = flows[`${from}->${to}`];
          const live = flow !== undefined && now - flow.at < 4000;
          return html`<g class=${`edge ${edge.kind}${flow ? " used" : ""}${live ? " live" : ""}`} data-from=${from} data-to=${to}>
            <path d=${path(edge.points)} marker-end="url(#arrow)" />
            ${flow ? html`<text x=${edge.points[1]?.x ?? 0} y=${(edge.points[1]?.y ?? 0) - 6} class="flow-count">${flow.count}×</text>` : null}
          </g>`;
        })}
        ${laid.nodes().map((id) => {
          const node = laid.node(id);
          const x = node.x - node.width / 2;
          const y = node.y - node.height / 2;
          if (node.connection)
            return html`<g class="node connection" data-connection=${node.connection.name} transform=${`translate(${x},${y})`}>
              <rect width=${node.width} height=${node.height} rx="8" />
              <text x="12" y="20" class="title">${node.connection.name}</text>
              <text x="12" y="38" class="sub">connector ${node.connection.connector}</text>
            </g>`;
          const { agent, lines, badges } = node.box;
          return html`<g class=${`node agent${agent.entry ? " entry" : ""}${busy[agent.name] ? " busy" : ""}`} data-agent=${agent.name}
            transform=${`translate(${x},${y})`}>
            <title>${agent.description ?? agent.name}</title>
            <rect width=${node.width} height=${node.height} rx="8" />
            <text x="12" y="21" class="title">${agent.name}${agent.entry ? " ★ entry" : ""}</text>
            ${lines.map((line, index) => html`<text x="12" y=${40 + index * LINE} class=${index === 0 ? "sub model" : "sub tool"}>${line}</text>`)}
            ${badges.map(
              (
                badge,
              ) => html`<g class="cluster-node" data-node=${badge.node} transform=${`translate(${badge.x},${badge.y})`}>
                <title>${`${agent.name} runs on node ${badge.node}`}</title>
                <rect width=${badge.width} height=${badge.height} rx="9" />
                <text x="7" y="13">⬢ ${badge.node}</text>
              </g>`,
            )}
          </g>`;
        })}
      </svg>
    </div>
    <ul class="legend" aria-label="Legend">
      <li><span class="swatch entry"></span> entry agent (★)</li>
      <li><span class="swatch call"></span> may call (agents tool)</li>
      <li><span class="swatch route"></span> connection routes to</li>
      <li><span class="swatch live"></span> a request just now, with its count</li>
      ${onCluster ? html`<li><span class="swatch cluster-node"></span> ⬢ a cluster node the agent runs on</li>` : null}
    </ul>
    ${
      Object.keys(flows).length === 0
        ? html`<p class="empty muted">No traffic yet. Send a message in <a href=${link("threads", graph.entryAgent, graph.instanceKey)}>Threads</a> and the requests between agents light up here.</p>`
        : null
    }
  </section>`;
}
