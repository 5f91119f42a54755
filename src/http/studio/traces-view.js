// Traces: the recent traces (from GET /v1/runtime-events, grouped by trace, newest first), the chosen one as a
// waterfall (waterfall.js), and the chosen span's detail from GET /v1/traces/:traceId/spans/:spanId: its inputs and
// outputs (a model call's prompt and answer, a tool's args and result), tokens, errors and retries.
import { useEffect, useState } from "preact/hooks";
import { recentEvents, span as loadSpan, trace as loadTrace } from "./api.js";
import { formatJson, formatMs, formatTime, html, link } from "./html.js";
import { Waterfall } from "./waterfall.js";

function recentTraces(events) {
  const traces = new Map();
  for (const event of events) {
    const item = traces.get(event.traceId) ?? {
      traceId: event.traceId,
      at: event.at,
      agents: new Set(),
      failed: false,
    };
    item.agents.add(event.agent);
    if (event.type.endsWith(".failed")) item.failed = true;
    if (event.type.startsWith("turn.") && !event.parentSpanId) {
      item.root = event.agent;
      if (event.durationMs !== undefined) item.durationMs = event.durationMs;
    }
    if (event.at < item.at) item.at = event.at;
    traces.set(event.traceId, item);
  }
  return [...traces.values()].sort((a, b) => (a.at < b.at ? 1 : -1)).slice(0, 50);
}

function Section({ title, field, value }) {
  if (value === undefined || (typeof value === "object" && value !== null && Object.keys(value).length === 0))
    return null;
  return html`<h3>${title}</h3><pre data-field=${field}>${formatJson(value)}</pre>`;
}

function SpanDetail({ traceId, spanId }) {
  const [answer, setAnswer] = useState(undefined);
  useEffect(() => {
    setAnswer(undefined);
    loadSpan(traceId, spanId).then(
      (body) => setAnswer(body.span),
      (failure) => setAnswer({ failure: failure.message }),
    );
  }, [traceId, spanId]);
  if (answer === undefined) return html`<p class="muted">Loading the span…</p>`;
  if (answer.failure) return html`<p class="error" role="alert">${answer.failure}</p>`;
  // A region of its own and one tab stop after the spans, so a keyboard reaches (and scrolls) what it shows.
  return html`<div class="span-detail" id="span-detail" data-span=${spanId} data-kind=${answer.kind} tabindex="0"
    role="region" aria-label=${`Span ${answer.name}`}>
    <h2>${answer.name}</h2>
    <dl class="facts">
      <dt>Agent</dt><dd>${answer.agent}/${answer.instanceKey}${answer.node ? ` on ${answer.node}` : ""}</dd>
      <dt>Status</dt><dd><span class=${`status status-${answer.status}`}>${answer.status}</span></dd>
      <dt>Started</dt><dd>${formatTime(answer.startedAt)}</dd>
      <dt>Duration</dt><dd>${answer.durationMs === undefined ? "–" : formatMs(answer.durationMs)}</dd>
      ${answer.usage ? html`<dt>Tokens</dt><dd class="tokens">${answer.usage.inputTokens} in / ${answer.usage.outputTokens} out</dd>` : null}
    </dl>
    ${answer.error ? html`<h3>Error</h3><p class="error"><code>${answer.error.code}</code> ${answer.error.message}</p>` : null}
    ${answer.retries.length > 0 ? html`<${Section} title="Retries" field="retries" value=${answer.retries} />` : null}
    ${Object.entries(answer.inputs).map(([name, value]) => html`<${Section} title=${`Input: ${name}`} field=${`inputs.${name}`} value=${value} />`)}
    ${Object.entries(answer.outputs).map(([name, value]) => html`<${Section} title=${`Output: ${name}`} field=${`outputs.${name}`} value=${value} />`)}
  </div>`;
}

export function TracesView({ parts }) {
  const [traceId, spanId] = parts;
  const [list, setList] = useState(undefined);
  const [trace, setTrace] = useState(undefined);
  const [error, setError] = useState("");
  useEffect(() => {
    recentEvents().then(
      (answer) => setList(recentTraces(answer.events)),
      (failure) => setError(failure.message),
    );
  }, []);
  useEffect(() => {
    setTrace(undefined);
    if (traceId) loadTrace(traceId).then(setTrace, (failure) => setError(failure.message));
  }, [traceId]);
  return html`<section class="view traces" aria-labelledby="traces-title">
    <h1 id="traces-title" class="sr-only">Traces</h1>
    <aside class="trace-list" aria-label="Recent traces">
      <h2>Recent traces</h2>
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${list && list.length === 0 ? html`<p class="muted empty">No trace yet. Every message you send in <a href="#/threads">Threads</a> makes one.</p>` : null}
      <ul>
        ${(list ?? []).map(
          (item) => html`<li>
            <a href=${link("traces", item.traceId)} aria-current=${item.traceId === traceId ? "true" : undefined} class=${item.failed ? "failed" : ""}>
              <span>${item.root ?? [...item.agents][0]}</span>
              <span class="muted">${formatTime(item.at)}${item.durationMs === undefined ? "" : ` · ${formatMs(item.durationMs)}`}</span>
              <code class="muted">${item.traceId.slice(0, 8)}</code>
            </a>
          </li>`,
        )}
      </ul>
    </aside>
    <div class="trace-pane">
      ${
        !traceId
          ? html`<div class="empty"><p>Choose a trace on the left, or open one from a message in a thread.</p></div>`
          : !trace
            ? html`<p class="muted">Loading trace ${traceId}…</p>`
            : html`<h2 class="trace-title">Trace <code>${traceId}</code></h2>
                <${Waterfall} events=${trace.events} selected=${spanId} onSelect=${(id) => (location.hash = link("traces", traceId, id))} />
                ${spanId ? html`<${SpanDetail} traceId=${traceId} spanId=${spanId} />` : html`<p class="muted">Choose a span for its inputs, outputs and tokens.</p>`}`
      }
    </div>
  </section>`;
}
