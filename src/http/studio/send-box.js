// The send box: POST /v1/events with "stream": true, the reply's text shown as its deltas arrive and the tool calls
// as they run; a daemon without streaming (501) is asked with "wait": true instead. Once done, the turn's trace
// can be opened.

import { api, ApiError, el, sse } from "./api.js";

export function startSendBox(elements, onDone) {
  const { form, agent, key, input, button, status, reply, tools, openTrace } = elements;
  form.addEventListener("submit", async (submit) => {
    submit.preventDefault();
    const body = { input: input.value };
    if (agent.value) body.agent = agent.value;
    if (key.value.trim()) body.instanceKey = key.value.trim();
    button.disabled = true;
    openTrace.hidden = true;
    reply.textContent = "";
    tools.replaceChildren();
    status.textContent = "sending…";
    let outcome;
    try {
      const answer = await sse("/v1/events", { method: "POST", body: { ...body, stream: true } }, (frame) => {
        if (frame.event === "delta") {
          status.textContent = "streaming…";
          reply.textContent += frame.data.text ?? "";
        } else if (frame.event === "tool") {
          // {phase, agent, instanceKey, name, status?}: the turn's tool calls and those of the turns it delegated to.
          const tool = frame.data;
          tools.append(
            el(
              "li",
              { "data-agent": tool.agent, "data-phase": tool.phase },
              `${tool.agent}/${tool.instanceKey} ${tool.name} ${tool.phase}${tool.status ? ` (${tool.status})` : ""}`,
            ),
          );
        } else if (frame.event === "restarted") {
          reply.textContent = "";
        } else if (frame.event === "done") {
          outcome = frame.data;
        } else if (frame.event === "error") {
          status.textContent = `error: ${frame.data?.error?.code ?? frame.data?.code ?? ""} ${frame.data?.error?.message ?? frame.data?.message ?? ""}`;
        }
      });
      if (answer !== undefined) {
        const failure = await answer.json().catch(() => undefined);
        if (answer.status !== 501 && answer.status !== 400) throw new ApiError(answer.status, failure);
        status.textContent = "waiting for the reply…";
        outcome = await api("/v1/events", { method: "POST", body: { ...body, wait: true } });
      }
      if (outcome) {
        reply.textContent = outcome.response ?? reply.textContent;
        status.textContent = `done: ${outcome.status}${outcome.error ? ` ${outcome.error.code}` : ""} (${outcome.agent}/${outcome.instanceKey}${outcome.steps === undefined ? "" : `, ${outcome.steps} steps`})`;
        openTrace.hidden = false;
        openTrace.onclick = () => onDone(outcome);
      }
    } catch (error) {
      status.textContent = `error: ${error.code ?? ""} ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
}

/** The trace id of an outcome's turn, from its instance's runtime events. */
export async function traceOfOutcome(outcome) {
  const path = `/v1/instances/${encodeURIComponent(outcome.agent)}/${encodeURIComponent(outcome.instanceKey)}/events?limit=1000`;
  const { events } = await api(path);
  const turn = events.find((event) => event.turnId === outcome.turnId && event.type.startsWith("turn."));
  return turn?.traceId;
}
