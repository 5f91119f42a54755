// Processes: every agent and connector process (GET /v1/processes, polled), with its pid, status, restarts, queued
// events, CPU time, memory, age and node, narrowed by a filter on any of its words; the budgets under it.
import { useEffect, useState } from "preact/hooks";
import { processes as loadProcesses } from "./api.js";
import { every, html } from "./html.js";
import { BudgetsTable } from "./budgets-table.js";

const mib = (bytes) => (typeof bytes === "number" ? `${(bytes / 1048576).toFixed(1)} MiB` : "–");
const cpu = (seconds) => (typeof seconds === "number" ? `${seconds.toFixed(2)} s` : "–");

function age(startedAt, now) {
  if (!startedAt) return "–";
  const seconds = Math.max(0, Math.round((now - Date.parse(startedAt)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

export function ProcessesView() {
  const [rows, setRows] = useState(undefined);
  const [budgets, setBudgets] = useState([]);
  const [error, setError] = useState("");
  const [filter, setFilter] = useState("");
  const [now, setNow] = useState(Date.now());
  useEffect(
    () =>
      every(1500, async () => {
        try {
          const answer = await loadProcesses();
          setRows(answer.processes);
          setBudgets(answer.budgets ?? []);
          setNow(Date.now());
          setError("");
        } catch (failure) {
          setError(failure.message);
        }
      }),
    [],
  );
  const words = filter.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const shown = (rows ?? []).filter((row) => {
    const text = [row.kind, row.agent, row.instanceKey, row.status, row.pid, row.node].join(" ").toLowerCase();
    return words.every((word) => text.includes(word));
  });
  return html`<section class="view processes" aria-labelledby="processes-title">
    <div class="view-head">
      <h1 id="processes-title">Processes</h1>
      <label class="filter"
        ><span class="sr-only">Filter processes</span>
        <input
          type="search"
          id="process-filter"
          placeholder="Filter: agent, status, pid…"
          value=${filter}
          onInput=${(event) => setFilter(event.currentTarget.value)}
      /></label>
    </div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${
      rows === undefined
        ? html`<p class="muted">Loading…</p>`
        : rows.length === 0
          ? html`<div class="empty">
              <p>No process runs yet.</p>
              <p class="muted">Agent processes start with their first event: send one from <a href="#/threads">Threads</a>.</p>
            </div>`
          : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Process table">
              <table id="processes">
                <thead>
                  <tr>
                    <th scope="col">Process</th>
                    <th scope="col">PID</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">Restarts</th>
                    <th scope="col" class="num">Queued</th>
                    <th scope="col" class="num">CPU</th>
                    <th scope="col" class="num">Memory</th>
                    <th scope="col">Age</th>
                    <th scope="col">Node</th>
                  </tr>
                </thead>
                <tbody>
                  ${shown.map(
                    (row) => html`<tr
                      key=${`${row.kind}/${row.agent}/${row.instanceKey}/${row.node ?? ""}`}
                      data-agent=${row.agent}
                      data-kind=${row.kind}
                      data-status=${row.status}
                    >
                      <th scope="row">
                        <span class="kind">${row.kind}</span> ${row.agent}<span class="muted">/${row.instanceKey}</span>
                      </th>
                      <td>${row.pid ?? "–"}</td>
                      <td><span class=${`status status-${row.status}`}>${row.status}</span></td>
                      <td class="num">${row.restarts}</td>
                      <td class="num">${row.queued}</td>
                      <td class="num">${cpu(row.cpuSeconds)}</td>
                      <td class="num">${mib(row.rssBytes)}</td>
                      <td>${age(row.startedAt, now)}</td>
                      <td>${row.node ?? "this host"}</td>
                    </tr>`,
                  )}
                </tbody>
              </table>
              ${shown.length === 0 ? html`<p class="muted">No process matches “${filter}”.</p>` : null}
            </div>`
    }
    <${BudgetsTable} budgets=${budgets} />
  </section>`;
}
