// A trace's waterfall: its runtime events folded into spans (turn → step → model and tool calls → the turns a tool
// call delegated to), one row each in tree order, every bar placed on one time axis: its left edge at the span's
// start and its length proportional to its duration, so a child lies inside its parent. The spans are one tree for
// the keyboard: one tab stop (the selected span, else the first), ↑/↓ to the span above or below, ←/→ to the parent
// or first child, Home/End, and Enter or Space opens the span's detail.
import { useState } from "preact/hooks";
import { formatMs, html } from "./html.js";

const KINDS = new Set(["turn", "step", "model", "tool"]);

/** Spans by id, each with start and duration (ms) and its children; and the roots. */
export function foldSpans(events) {
  const spans = new Map();
  for (const event of events) {
    const kind = event.type.split(".")[0];
    if (!KINDS.has(kind)) continue;
    const span = spans.get(event.spanId) ?? {
      spanId: event.spanId,
      parentSpanId: event.parentSpanId,
      kind,
      children: [],
    };
    if (/\.(started|called)$/.test(event.type)) span.start = event;
    else if (/\.(completed|failed)$/.test(event.type)) span.end = event;
    spans.set(event.spanId, span);
  }
  const lastAt = Math.max(...events.map((event) => Date.parse(event.at)));
  for (const span of spans.values()) {
    const about = span.end ?? span.start;
    span.agent = about.agent;
    span.instanceKey = about.instanceKey;
    span.status = span.end ? (span.end.type.endsWith(".failed") ? "error" : "ok") : "running";
    const endAt = span.end ? Date.parse(span.end.at) : lastAt;
    span.durationMs = span.end?.durationMs ?? Math.max(0, endAt - Date.parse(span.start.at));
    span.startMs = span.start ? Date.parse(span.start.at) : endAt - span.durationMs;
    span.name =
      span.kind === "tool"
        ? about.toolName
        : span.kind === "model"
          ? `${span.end?.data?.model ?? "model"}`
          : span.kind === "step"
            ? `step ${about.stepIndex ?? 0}`
            : `${about.agent}/${about.instanceKey}`;
    span.usage = span.end?.usage;
  }
  const roots = [];
  for (const span of spans.values()) {
    const parent = span.parentSpanId ? spans.get(span.parentSpanId) : undefined;
    if (parent) parent.children.push(span);
    else roots.push(span);
  }
  for (const span of spans.values()) span.children.sort((a, b) => a.startMs - b.startMs);
  roots.sort((a, b) => a.startMs - b.startMs);
  return { spans, roots };
}

function rowsOf(roots) {
  const rows = [];
  const walk = (span, depth) => {
    rows.push({ span, depth });
    for (const child of span.children) walk(child, depth + 1);
  };
  for (const root of roots) walk(root, 0);
  return rows;
}

/** The row the key moves to from row `index`, or undefined when the key is not one of the tree's. */
function moveTo(rows, index, key) {
  const here = rows[index];
  switch (key) {
    case "ArrowDown":
      return Math.min(rows.length - 1, index + 1);
    case "ArrowUp":
      return Math.max(0, index - 1);
    case "Home":
      return 0;
    case "End":
      return rows.length - 1;
    case "ArrowLeft": {
      const parent = rows.findIndex((row) => row.span.spanId === here.span.parentSpanId);
      return parent === -1 ? index : parent;
    }
    case "ArrowRight":
      return rows[index + 1]?.depth > here.depth ? index + 1 : index;
    default:
      return undefined;
  }
}

export function Waterfall({ events, selected, onSelect }) {
  const [focused, setFocused] = useState(undefined);
  const { spans, roots } = foldSpans(events);
  if (spans.size === 0) return html`<p class="muted">This trace has no spans yet.</p>`;
  const rows = rowsOf(roots);
  const has = (id) => id !== undefined && spans.has(id);
  const tabStop = has(focused) ? focused : has(selected) ? selected : rows[0].span.spanId;
  const onKeyDown = (event) => {
    const index = rows.findIndex((row) => row.span.spanId === tabStop);
    const next = moveTo(rows, index, event.key);
    if (next === undefined) return;
    event.preventDefault();
    const id = rows[next].span.spanId;
    setFocused(id);
    event.currentTarget.querySelector(`[data-span="${CSS.escape(id)}"]`)?.focus();
  };
  const t0 = Math.min(...[...spans.values()].map((span) => span.startMs));
  const t1 = Math.max(...[...spans.values()].map((span) => span.startMs + span.durationMs));
  const total = Math.max(1, t1 - t0);
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return html`<div class="waterfall" id="waterfall" data-total-ms=${total} role="tree"
    aria-label="Spans of the trace: arrow keys move, Enter opens a span" onKeyDown=${onKeyDown}>
    <div class="wf-axis" aria-hidden="true">
      <span class="wf-label"></span>
      <span class="wf-track">${ticks.map((tick) => html`<span class="tick" style=${{ left: `${tick * 100}%` }}>${formatMs(tick * total)}</span>`)}</span>
    </div>
    ${rows.map(({ span, depth }) => {
      const left = ((span.startMs - t0) / total) * 100;
      const width = (span.durationMs / total) * 100;
      return html`<button
        key=${span.spanId}
        type="button"
        role="treeitem"
        tabindex=${span.spanId === tabStop ? 0 : -1}
        aria-level=${depth + 1}
        aria-selected=${selected === span.spanId ? "true" : "false"}
        class=${`wf-row kind-${span.kind} status-${span.status}`}
        data-span=${span.spanId}
        data-kind=${span.kind}
        data-agent=${span.agent}
        data-duration-ms=${span.durationMs}
        onClick=${() => {
          setFocused(span.spanId);
          onSelect(span.spanId);
        }}
      >
        <span class="wf-label" style=${{ paddingLeft: `${depth * 14 + 6}px` }}>
          <span class="kind">${span.kind}</span> <span class="name">${span.name}</span>
          <span class="muted"> ${formatMs(span.durationMs)}</span>
          ${span.usage ? html`<span class="tokens"> ${span.usage.inputTokens} in / ${span.usage.outputTokens} out</span>` : null}
        </span>
        <span class="wf-track"><span class="bar" style=${{ left: `${left}%`, width: `${width}%` }}></span></span>
      </button>`;
    })}
  </div>`;
}
