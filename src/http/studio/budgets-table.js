// Budgets (docs/limits.md#budgets): each budget counter in its current window, from GET /v1/processes, with what it
// used of its limits and when it renews; shown under the process table when the swarm has budgets.
import { html } from "./html.js";

const share = (used, limit, format) =>
  limit === undefined ? format(used) : `${format(used)} / ${format(limit)} (${Math.round((used / limit) * 100)}%)`;
const usd = (value) => `$${value.toFixed(4)}`;
const period = (ms) =>
  ms % 86400000 === 0 ? `${ms / 86400000} d` : ms % 3600000 === 0 ? `${ms / 3600000} h` : `${ms / 60000} min`;
const exhausted = (row) =>
  (row.limitTokens !== undefined && row.tokens >= row.limitTokens) ||
  (row.limitCostUsd !== undefined && row.costUsd >= row.limitCostUsd);

export function BudgetsTable({ budgets }) {
  if (!budgets || budgets.length === 0) return null;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Budgets">
    <h2>Budgets</h2>
    <table id="budgets">
      <thead>
        <tr>
          <th scope="col">Budget</th>
          <th scope="col">Period</th>
          <th scope="col" class="num">Tokens</th>
          <th scope="col" class="num">Cost</th>
          <th scope="col">Renews</th>
        </tr>
      </thead>
      <tbody>
        ${budgets.map(
          (
            row,
          ) => html`<tr key=${`${row.scope}/${row.subject}/${row.periodMs}`} data-scope=${row.scope} data-exhausted=${String(exhausted(row))}>
            <th scope="row"><span class="kind">${row.scope}</span> ${row.scope === "swarm" ? row.swarm : row.subject}</th>
            <td>${period(row.periodMs)}</td>
            <td class="num">${share(row.tokens, row.limitTokens, String)}</td>
            <td class="num">${share(row.costUsd, row.limitCostUsd, usd)}</td>
            <td>${new Date(row.windowStart + row.periodMs).toISOString()}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
