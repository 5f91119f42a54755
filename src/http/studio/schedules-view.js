// Schedules: the swarm's schedules (GET /v1/schedules, polled): each `schedule` Connection with its cron or interval
// and time zone, the next fire time, the newest tick and its result, the counts since the daemon started (fired,
// caught up, missed, late) and, in a cluster, the node firing it; under them the pending timers (suspended turns
// and messages sent for later) with when they wake and the signal they wait for. "Run now" fires one tick
// (POST /v1/schedules/:name/run).
import { useEffect, useState } from "preact/hooks";
import { runSchedule, schedules as loadSchedules } from "./api.js";
import { every, formatTime, html, link } from "./html.js";

const when = (at) => (at ? html`<time datetime=${at}>${formatTime(at)}</time>` : "–");

export function ScheduleTable({ rows, onRun }) {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Schedules">
    <table id="schedules">
      <thead>
        <tr>
          <th scope="col">Schedule</th>
          <th scope="col">When</th>
          <th scope="col">Next</th>
          <th scope="col">Last tick</th>
          <th scope="col">Result</th>
          <th scope="col" class="num">Fired</th>
          <th scope="col" class="num">Caught up</th>
          <th scope="col" class="num">Missed</th>
          <th scope="col" class="num">Late</th>
          <th scope="col">Node</th>
          <th scope="col"><span class="sr-only">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) => html`<tr key=${row.connection} data-schedule=${row.connection}>
            <th scope="row">${row.connection}</th>
            <td><code>${row.cron ?? `every ${row.every}`}</code> <span class="muted">${row.timezone} · catch-up ${row.catchUp}</span></td>
            <td data-next>${when(row.nextAt)}</td>
            <td>${when(row.lastTickAt)}</td>
            <td>${row.lastResult ? html`<span class=${`status status-${row.lastResult}`}>${row.lastResult}</span>` : "–"}</td>
            <td class="num" data-fired>${row.fired}</td>
            <td class="num">${row.caughtUp}</td>
            <td class="num">${row.missed}</td>
            <td class="num">${row.late}</td>
            <td>${row.node ?? "this host"}</td>
            <td><button type="button" data-run=${row.connection} onClick=${() => onRun(row.connection)}>Run now</button></td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export function TimerTable({ timers }) {
  if (timers.length === 0) return html`<p class="muted" id="timers-empty">No turn waits for a time or a signal.</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Pending timers">
    <table id="timers">
      <thead>
        <tr><th scope="col">Agent</th><th scope="col">Tool</th><th scope="col">Until</th><th scope="col">Signal</th></tr>
      </thead>
      <tbody>
        ${timers.map(
          (timer) => html`<tr key=${timer.id ?? timer.eventId} data-timer=${timer.toolName}>
            <th scope="row"><a href=${link("threads", timer.agent, timer.instanceKey)}>${timer.agent}<span class="muted">/${timer.instanceKey}</span></a></th>
            <td><code>${timer.toolName}</code></td>
            <td>${when(timer.until)}</td>
            <td>${timer.signal ?? "–"}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export function SchedulesView() {
  const [answer, setAnswer] = useState(undefined);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const refresh = async () => {
    try {
      setAnswer(await loadSchedules());
      setError("");
    } catch (failure) {
      setError(failure.code === "E_SCHEDULES_UNAVAILABLE" ? "This daemon runs no schedules." : failure.message);
    }
  };
  useEffect(() => every(2000, refresh), []);
  const onRun = async (name) => {
    try {
      const fired = await runSchedule(name);
      setNotice(`Fired ${name}: event ${fired.eventId}`);
      await refresh();
    } catch (failure) {
      setNotice(failure.message);
    }
  };
  return html`<section class="view schedules" aria-labelledby="schedules-title">
    <div class="view-head"><h1 id="schedules-title">Schedules</h1></div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${notice ? html`<p class="muted" role="status" id="schedule-notice">${notice}</p>` : null}
    ${
      answer === undefined
        ? error
          ? null
          : html`<p class="muted">Loading…</p>`
        : html`${
            answer.schedules.length === 0
              ? html`<div class="empty" id="schedules-empty">
                  <p>No schedule in this swarm.</p>
                  <p class="muted">A Connection of the built-in <code>schedule</code> connector (<code>cron</code> or <code>every</code>) shows here.</p>
                </div>`
              : html`<${ScheduleTable} rows=${answer.schedules} onRun=${onRun} />`
          }
          <h2>Pending timers</h2>
          <${TimerTable} timers=${answer.timers} />`
    }
  </section>`;
}
