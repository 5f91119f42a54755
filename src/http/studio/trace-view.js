// One trace across processes: the runtime events of GET /v1/traces/:traceId folded into spans (turn → steps →
// model calls and tool calls → the turns they delegated), each with its agent, duration, tokens and a bar placed on
// the trace's timeline.

import { api, el } from "./api.js";

function spanName(span) {
  const event = span.end ?? span.start;
  switch (span.kind) {
    case "turn":
      return `turn ${event.agent}/${event.instanceKey}`;
    case "step":
      return `step ${event.stepIndex ?? 0}`;
    case "model":
      return `model ${event.data?.provider ?? ""}:${event.data?.model ?? ""}`;
    case "tool":
      return `tool ${event.toolName ?? ""}`;
    default:
      return event.type;
  }
}

/** Folds runtime events into spans by spanId; returns the roots (spans whose parent is not in the trace). */
export function foldSpans(events) {
  const spans = new Map();
  for (const event of events) {
    const kind = event.type.split(".")[0];
    if (!["turn", "step", "model", "tool"].includes(kind)) continue;
    const span = spans.get(event.spanId) ?? {
      spanId: event.spanId,
      parentSpanId: event.parentSpanId,
      kind,
      agent: event.agent,
      children: [],
    };
    if (/\.(started|called)$/.test(event.type)) span.start = event;
    else if (/\.(completed|failed)$/.test(event.type)) span.end = event;
    spans.set(event.spanId, span);
  }
  for (const span of spans.values()) {
    const endMs = span.end ? Date.parse(span.end.at) : undefined;
    span.startMs = span.start
      ? Date.parse(span.start.at)
      : endMs !== undefined
        ? endMs - (span.end.durationMs ?? 0)
        : 0;
    span.durationMs = span.end?.durationMs;
    span.failed = span.end?.type.endsWith(".failed") ?? false;
  }
  const roots = [];
  for (const span of spans.values()) {
    const parent = span.parentSpanId ? spans.get(span.parentSpanId) : undefined;
    if (parent) parent.children.push(span);
    else roots.push(span);
  }
  const byStart = (a, b) => a.startMs - b.startMs;
  for (const span of spans.values()) span.children.sort(byStart);
  return roots.sort(byStart);
}

function renderSpan(span, timeline) {
  const usage = span.end?.usage;
  const left = ((span.startMs - timeline.start) / timeline.length) * 100;
  const width = ((span.durationMs ?? 0) / timeline.length) * 100;
  const bar = el("div", { class: "bar", style: { marginLeft: `${left.toFixed(1)}%`, width: `${width.toFixed(1)}%` } });
  const row = el(
    "div",
    { class: "row" },
    el("span", { class: "name" }, spanName(span)),
    el("span", { class: "agent muted" }, span.agent),
    el("span", { class: "duration" }, span.durationMs === undefined ? "running" : `${span.durationMs} ms`),
    el("span", { class: "tokens muted" }, usage ? `${usage.inputTokens} in / ${usage.outputTokens} out` : ""),
    el("div", { style: { flex: "1" } }, bar),
  );
  const node = el(
    "div",
    {
      class: `span ${span.kind}${span.failed ? " failed" : ""}`,
      "data-kind": span.kind,
      "data-agent": span.agent,
      "data-span": span.spanId,
    },
    row,
  );
  for (const child of span.children) node.append(renderSpan(child, timeline));
  return node;
}

export async function showTrace(root, label, traceId) {
  label.textContent = traceId;
  root.replaceChildren(el("span", { class: "muted" }, "loading…"));
  const { events } = await api(`/v1/traces/${traceId}`);
  const roots = foldSpans(events);
  const starts = roots.map((span) => span.startMs);
  const ends = roots.map((span) => span.startMs + (span.durationMs ?? 0));
  const timeline = { start: Math.min(...starts), length: Math.max(1, Math.max(...ends) - Math.min(...starts)) };
  root.replaceChildren(...roots.map((span) => renderSpan(span, timeline)));
}
