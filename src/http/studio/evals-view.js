// Evals: the runs of `goondan eval` this daemon's state root keeps (GET /v1/evals, newest first), a run's cases with
// status, score, tokens, cost, duration and each failed check (GET /v1/evals/:runId), and a case's thread and trace
// drawn from what its report kept (the case's daemon is gone): the Threads view's message items (chat-items.js) and
// the Traces view's waterfall (waterfall.js). The hash is #/evals/<run>/<case>.
import { useEffect, useState } from "preact/hooks";
import { evalRun as loadRun, evalRuns as loadRuns } from "./api.js";
import { ThreadItem, threadItems } from "./chat-items.js";
import { formatMs, formatTime, html, link } from "./html.js";
import { Waterfall } from "./waterfall.js";

const cost = (usd) => (usd === null || usd === undefined ? "unknown" : `$${usd.toFixed(4)}`);
const tokens = (count) => `${count?.input ?? 0} in / ${count?.output ?? 0} out`;
const Status = ({ status }) =>
  html`<span class=${`status status-${status === "pass" ? "ok" : status === "skipped" ? "pending" : "failed"}`}>${status}</span>`;

function EmptyRuns() {
  return html`<div class="empty" id="evals-empty">
    <p>No eval run is kept here yet.</p>
    <p class="muted">In the bundle's directory, with this daemon's state root (GOONDAN_STATE_ROOT or --state-root), run</p>
    <pre>goondan eval --replay</pre>
    <p class="muted">to score its Eval cases from their cassettes (or <code>goondan eval</code> to call the models live); the run shows here.</p>
  </div>`;
}

function RunList({ runs, runId }) {
  return html`<ul>
    ${runs.map(
      (run) => html`<li>
        <a href=${link("evals", run.id)} aria-current=${run.id === runId ? "true" : undefined} data-run=${run.id}
          class=${run.failed + run.errors > 0 ? "failed" : ""}>
          <span>${formatTime(run.startedAt)} · ${run.mode}</span>
          <span class="muted">${run.passed}/${run.cases} passed${run.failed ? ` · ${run.failed} failed` : ""}${run.errors ? ` · ${run.errors} errors` : ""}</span>
          <span class="muted">${cost(run.costUsd)} · ${formatMs(run.durationMs)}</span>
        </a>
      </li>`,
    )}
  </ul>`;
}

function CaseTable({ runId, report, caseId }) {
  return html`<div class="table-scroll" role="region" aria-label="Cases" tabindex="0"><table class="eval-cases" id="eval-cases">
    <caption>Cases of the run of ${report.bundle}${report.stoppedBy ? ` (stopped: ${report.stoppedBy})` : ""}</caption>
    <thead><tr><th scope="col">Case</th><th scope="col">Status</th><th scope="col">Score</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">Duration</th><th scope="col">Failed checks</th></tr></thead>
    <tbody>
      ${report.cases.map((item) => {
        const failed = item.checks.filter((check) => !check.pass);
        return html`<tr data-case=${item.id} aria-current=${item.id === caseId ? "true" : undefined}>
          <th scope="row"><a href=${link("evals", runId, item.id)}>${item.id}</a></th>
          <td><${Status} status=${item.status} /></td>
          <td>${item.score.toFixed(2)}</td>
          <td class="tokens">${tokens(item.tokens)}</td>
          <td>${cost(item.costUsd)}</td>
          <td>${formatMs(item.durationMs)}</td>
          <td>${
            failed.length === 0 && !item.error
              ? "–"
              : html`<ul class="failed-checks">
            ${item.error ? html`<li><code>${item.error.code}</code> ${item.error.message}</li>` : null}
            ${failed.map((check) => html`<li><code>${check.name}</code> ${check.detail}</li>`)}
          </ul>`
          }</td>
        </tr>`;
      })}
    </tbody>
  </table></div>`;
}

/** The case's kept conversations as the Threads view draws them (no live trace links: the case's daemon is gone). */
function CaseThread({ item }) {
  const threads = item.threads ?? [];
  if (threads.length === 0) return html`<p class="muted">This case kept no conversation.</p>`;
  return threads.map((thread) => {
    const events = (item.events ?? []).filter(
      (event) => event.agent === thread.agent && event.instanceKey === thread.instanceKey,
    );
    const items = threadItems(thread.messages, events).map((entry) => ({
      ...entry,
      agent: thread.agent,
      traceId: undefined,
    }));
    return html`<div class="thread" data-agent=${thread.agent} data-instance=${thread.instanceKey}>
      <h4>${thread.agent}<span class="muted">/${thread.instanceKey}</span></h4>
      <ol class="messages" aria-label=${`Conversation with ${thread.agent}/${thread.instanceKey}`}>
        ${items.map((entry) => html`<${ThreadItem} key=${entry.id} item=${entry} />`)}
      </ol>
    </div>`;
  });
}

function CaseDetail({ item }) {
  const [span, setSpan] = useState(undefined);
  return html`<article class="eval-case" id="eval-case" data-case=${item.id} aria-labelledby="eval-case-title">
    <h2 id="eval-case-title">${item.id} <${Status} status=${item.status} /></h2>
    <dl class="facts">
      <dt>Agent</dt><dd>${item.swarm} · ${item.agent}/${item.instanceKey || "–"}</dd>
      <dt>Score</dt><dd>${item.score.toFixed(2)}</dd>
      <dt>Steps</dt><dd>${item.steps}</dd>
      <dt>Latency</dt><dd>${formatMs(item.latencyMs)}</dd>
    </dl>
    ${
      item.checks.length > 0
        ? html`<h3>Checks</h3><ul class="checks">
      ${item.checks.map((check) => html`<li class=${check.pass ? "pass" : "fail"}><${Status} status=${check.pass ? "pass" : "fail"} /> <code>${check.name}</code> ${check.detail}</li>`)}
    </ul>`
        : null
    }
    ${item.error ? html`<p class="error"><code>${item.error.code}</code> ${item.error.message}</p>` : null}
    <section id="eval-thread" aria-labelledby="eval-thread-title">
      <h3 id="eval-thread-title">Thread</h3>
      <${CaseThread} item=${item} />
    </section>
    <section id="eval-trace" aria-labelledby="eval-trace-title">
      <h3 id="eval-trace-title">Trace</h3>
      ${item.totalEvents ? html`<p class="muted">The first ${item.events.length} of ${item.totalEvents} runtime events.</p>` : null}
      ${(item.events ?? []).length === 0 ? html`<p class="muted">This case kept no runtime events.</p>` : html`<${Waterfall} events=${item.events} selected=${span} onSelect=${setSpan} />`}
    </section>
  </article>`;
}

export function EvalsView({ parts }) {
  const [runId, caseId] = parts;
  const [runs, setRuns] = useState(undefined);
  const [report, setReport] = useState(undefined);
  const [error, setError] = useState("");
  useEffect(() => {
    loadRuns().then(
      (answer) => setRuns(answer.runs),
      (failure) => setError(failure.message),
    );
  }, []);
  useEffect(() => {
    setReport(undefined);
    if (runId) loadRun(runId).then(setReport, (failure) => setError(failure.message));
  }, [runId]);
  const chosen = report?.cases?.find((item) => item.id === caseId);
  return html`<section class="view traces evals" aria-labelledby="evals-title">
    <h1 id="evals-title" class="sr-only">Evals</h1>
    <aside class="trace-list" aria-label="Eval runs">
      <h2>Eval runs</h2>
      ${runs && runs.length === 0 ? html`<p class="muted empty">None yet.</p>` : null}
      ${runs ? html`<${RunList} runs=${runs} runId=${runId} />` : null}
    </aside>
    <div class="trace-pane">
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${
        !runId
          ? runs && runs.length === 0
            ? html`<${EmptyRuns} />`
            : html`<div class="empty"><p>Choose a run on the left for its cases.</p></div>`
          : !report
            ? html`<p class="muted">Loading run ${runId}…</p>`
            : html`<h2 class="trace-title">Run <code>${runId}</code> <span class="muted">${report.mode} · ${report.totals.passed}/${report.totals.cases} passed · ${tokens(report.totals.tokens)} · ${cost(report.totals.costUsd)}</span></h2>
                <${CaseTable} runId=${runId} report=${report} caseId=${caseId} />
                ${caseId ? (chosen ? html`<${CaseDetail} key=${chosen.id} item=${chosen} />` : html`<p class="error" role="alert">No case ${caseId} in this run.</p>`) : html`<p class="muted">Choose a case for its checks, thread and trace.</p>`}`
      }
    </div>
  </section>`;
}
