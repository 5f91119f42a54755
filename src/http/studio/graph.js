// The agents graph: one node per agent, an arrow for each agent that asked another (a turn whose parent span is
// another agent's tool call), lit up while messages flow, and the flows listed as they happen.

import { el } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

export class AgentGraph {
  constructor(root, feed, onOpenTrace) {
    this.root = root;
    this.feed = feed;
    this.onOpenTrace = onOpenTrace;
    this.agents = new Set();
    this.edges = new Map(); // "from→to" → {from, to, count, activeUntil}
    this.spanOwner = new Map(); // spanId → agent (bounded)
    this.waiting = []; // turns whose parent span was not seen yet (polled events arrive instance by instance)
  }

  setAgents(names) {
    let changed = false;
    for (const name of names) if (!this.agents.has(name)) this.agents.add(name), (changed = true);
    if (changed) this.render();
  }

  observe(events) {
    for (const event of events)
      if (event.type === "tool.called" || event.type === "turn.started") this.remember(event.spanId, event.agent);
    const turns = [...this.waiting, ...events.filter((event) => event.type === "turn.started" && event.parentSpanId)];
    this.waiting = [];
    for (const event of turns) {
      const from = this.spanOwner.get(event.parentSpanId);
      if (from === undefined) {
        if (Date.now() - Date.parse(event.at) < 60_000) this.waiting.push(event);
        continue;
      }
      if (from === event.agent) continue;
      this.agents.add(from);
      this.agents.add(event.agent);
      const key = `${from}→${event.agent}`;
      const edge = this.edges.get(key) ?? { from, to: event.agent, count: 0, activeUntil: 0 };
      edge.count += 1;
      edge.activeUntil = Date.now() + 2000;
      this.edges.set(key, edge);
      const item = el(
        "li",
        { "data-trace": event.traceId },
        `${event.at.slice(11, 19)} ${from} → ${event.agent}/${event.instanceKey} `,
      );
      const open = el("button", { type: "button", class: "link" }, "trace");
      open.addEventListener("click", () => this.onOpenTrace(event.traceId));
      item.append(open);
      this.feed.prepend(item);
      while (this.feed.children.length > 50) this.feed.lastElementChild.remove();
      setTimeout(() => this.render(), 2100);
    }
    this.waiting = this.waiting.slice(-500);
    this.render();
  }

  remember(spanId, agent) {
    this.spanOwner.set(spanId, agent);
    if (this.spanOwner.size > 5000) this.spanOwner.delete(this.spanOwner.keys().next().value);
  }

  render() {
    const names = [...this.agents].sort();
    const positions = new Map();
    const [cx, cy, r] = [300, 110, names.length > 1 ? 80 : 0];
    names.forEach((name, index) => {
      const angle = (2 * Math.PI * index) / Math.max(1, names.length) - Math.PI / 2;
      positions.set(name, { x: cx + r * 2 * Math.cos(angle), y: cy + r * Math.sin(angle) });
    });
    this.root.replaceChildren();
    const defs = svg("defs");
    const marker = svg("marker", {
      id: "arrow",
      viewBox: "0 0 10 10",
      refX: 10,
      refY: 5,
      markerWidth: 6,
      markerHeight: 6,
      orient: "auto-start-reverse",
    });
    marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "currentColor" }));
    defs.append(marker);
    this.root.append(defs);
    for (const edge of this.edges.values()) {
      const a = positions.get(edge.from);
      const b = positions.get(edge.to);
      if (!a || !b) continue;
      const length = Math.hypot(b.x - a.x, b.y - a.y) || 1;
      const [dx, dy] = [((b.x - a.x) / length) * 28, ((b.y - a.y) / length) * 28];
      const line = svg("line", {
        x1: a.x + dx,
        y1: a.y + dy,
        x2: b.x - dx,
        y2: b.y - dy,
        class: `edge${edge.activeUntil > Date.now() ? " active" : ""}`,
        "data-from": edge.from,
        "data-to": edge.to,
      });
      const label = svg("text", {
        x: (a.x + b.x) / 2,
        y: (a.y + b.y) / 2 - 6,
        "text-anchor": "middle",
        "font-size": 11,
        fill: "currentColor",
      });
      label.textContent = String(edge.count);
      this.root.append(line, label);
    }
    for (const name of names) {
      const { x, y } = positions.get(name);
      const group = svg("g", { class: "node", "data-agent": name });
      const text = svg("text", { x, y: y + 4 });
      text.textContent = name;
      group.append(svg("circle", { cx: x, cy: y, r: 26 }), text);
      this.root.append(group);
    }
  }
}
