// The studio page: asks for the token when the API wants one, then keeps the process table, the agents graph,
// the chosen instance's conversation and the pending approvals fresh, and wires the send box and the trace view.

import { api, el, onUnauthorized, setToken } from "./api.js";
import { AgentGraph } from "./graph.js";
import { startRuntimeFeed } from "./runtime-feed.js";
import { startSendBox, traceOfOutcome } from "./send-box.js";
import { showTrace } from "./trace-view.js";

const $ = (id) => document.getElementById(id);
let instances = [];
let needsToken = false;

onUnauthorized(() => {
  needsToken = true;
  $("token-form").hidden = false;
  $("connection").textContent = "token needed";
});

$("token-form").addEventListener("submit", async (submit) => {
  submit.preventDefault();
  setToken($("token-input").value);
  try {
    await api("/v1/processes");
    needsToken = false;
    $("token-form").hidden = true;
    $("token-error").textContent = "";
    start();
  } catch (error) {
    $("token-error").textContent = error.message;
  }
});

function cell(value) {
  return el("td", {}, value ?? "");
}

async function refreshProcesses() {
  const { processes } = await api("/v1/processes");
  $("processes").tBodies[0].replaceChildren(
    ...processes.map((row) =>
      el(
        "tr",
        { "data-agent": row.agent, "data-kind": row.kind, "data-status": row.status },
        cell(row.kind),
        cell(row.agent),
        cell(row.instanceKey),
        cell(row.pid),
        cell(row.status),
        cell(row.restarts),
        cell(row.queued),
      ),
    ),
  );
  graph.setAgents(processes.filter((row) => row.kind === "agent").map((row) => row.agent));
  $("connection").textContent = `${processes.length} processes · updated ${new Date().toLocaleTimeString()}`;
}

async function refreshInstances() {
  ({ instances } = await api("/v1/instances"));
  const select = $("instance-select");
  const chosen = select.value;
  select.replaceChildren(
    ...instances.map((row) =>
      el("option", { value: `${row.agent}/${row.instanceKey}` }, `${row.agent}/${row.instanceKey}`),
    ),
  );
  if (chosen) select.value = chosen;
  const agents = [...new Set(instances.map((row) => row.agent))];
  graph.setAgents(agents);
  const agentSelect = $("send-agent");
  const known = new Set([...agentSelect.options].map((option) => option.value));
  for (const agent of agents) if (!known.has(agent)) agentSelect.append(el("option", { value: agent }, agent));
}

function messageText(data) {
  if (typeof data.content === "string") return data.content;
  return (data.content ?? [])
    .map((part) => {
      if (part.type === "text") return part.text;
      if (part.type === "tool-call") return `→ ${part.toolName}(${JSON.stringify(part.input ?? part.args ?? {})})`;
      if (part.type === "tool-result")
        return `← ${part.toolName}: ${JSON.stringify(part.output ?? part.result ?? "").slice(0, 400)}`;
      return `[${part.type}]`;
    })
    .join("\n");
}

async function refreshConversation() {
  const chosen = $("instance-select").value;
  if (!chosen) return;
  const [agent, ...rest] = chosen.split("/");
  try {
    const { messages } = await api(
      `/v1/instances/${encodeURIComponent(agent)}/${encodeURIComponent(rest.join("/"))}/messages`,
    );
    $("conversation").replaceChildren(
      ...messages.map((message) =>
        el(
          "li",
          { "data-role": message.data.role },
          el("span", { class: "role" }, message.data.role),
          messageText(message.data),
        ),
      ),
    );
  } catch (error) {
    $("conversation").replaceChildren(el("li", { class: "muted" }, error.message));
  }
}

let approvalsGone = false;
/** GET /v1/approvals: each pending tool call with approve and deny buttons (POST /v1/approvals/:id); hidden without the route. */
async function refreshApprovals() {
  if (approvalsGone) return;
  try {
    const { approvals = [] } = await api("/v1/approvals");
    $("approvals-panel").hidden = false;
    const items = approvals.map((item) => {
      const decide = (decision) => async () => {
        try {
          await api(`/v1/approvals/${encodeURIComponent(item.id)}`, {
            method: "POST",
            body: { decision, approver: "studio" },
          });
        } catch (error) {
          row.append(el("span", { class: "error" }, ` ${error.message}`));
        }
        void refreshApprovals();
      };
      const approve = el("button", { type: "button", class: "approve" }, "approve");
      const deny = el("button", { type: "button", class: "deny" }, "deny");
      approve.addEventListener("click", decide("approve"));
      deny.addEventListener("click", decide("deny"));
      const row = el(
        "li",
        { "data-approval": item.id },
        `${item.agent}/${item.instanceKey} ${item.toolName} ${JSON.stringify(item.arguments ?? {}).slice(0, 200)} `,
        approve,
        " ",
        deny,
      );
      return row;
    });
    $("approvals").replaceChildren(...(items.length > 0 ? items : [el("li", { class: "muted" }, "none pending")]));
  } catch (error) {
    if ([404, 405, 501].includes(error.status)) {
      approvalsGone = true;
      $("approvals-panel").hidden = true;
    }
  }
}

async function openTrace(traceId) {
  if (traceId) await showTrace($("trace"), $("trace-id"), traceId);
}

const graph = new AgentGraph($("graph"), $("flows"), (traceId) => void openTrace(traceId).catch(() => {}));

function every(ms, task) {
  const run = async () => {
    if (!needsToken) await task().catch(() => {});
    setTimeout(run, ms);
  };
  void run();
}

let started = false;
function start() {
  if (started) return;
  started = true;
  every(1500, refreshProcesses);
  every(2000, async () => (await refreshInstances(), await refreshConversation()));
  every(3000, refreshApprovals);
  startRuntimeFeed(
    (events) => graph.observe(events),
    () => instances,
  );
}

$("instance-select").addEventListener("change", () => void refreshConversation());
startSendBox(
  {
    form: $("send-form"),
    agent: $("send-agent"),
    key: $("send-key"),
    input: $("send-input"),
    button: $("send-button"),
    status: $("reply-status"),
    reply: $("reply"),
    tools: $("reply-tools"),
    openTrace: $("open-trace"),
  },
  async (outcome) => openTrace(await traceOfOutcome(outcome)),
);

api("/v1/processes")
  .then(() => start())
  .catch(() => {
    if (!needsToken) start();
  });
