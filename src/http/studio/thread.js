// One thread: an agent instance's conversation, and the composer that talks to it. A message goes out with
// POST /v1/events (stream: true): it shows at once, the reply's text grows as its deltas come, and each tool call
// (this turn's and those of the agents it asked) appears inline as it starts and ends. A turn that stops for a
// person's approval shows the held call inline with Approve and Deny; the decision is sent with stream: true and the
// resumed turn's reply streams into the same thread. The input clears after sending and keeps the focus.
import { useEffect, useRef, useState } from "preact/hooks";
import { approvals as loadApprovals, decide, instanceEvents, messages as loadMessages, send } from "./api.js";
import { Markdown, ThreadItem, ToolCall, threadItems } from "./chat-items.js";
import { formatJson, html } from "./html.js";

function Approval({ approval, onDecide }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const choose = (decision) => async () => {
    setBusy(true);
    try {
      await onDecide(approval, decision);
    } catch (failure) {
      setError(failure.message);
      setBusy(false);
    }
  };
  return html`<li class="approval card" data-approval=${approval.id} aria-label=${`Approval for ${approval.toolName}`}>
    <p><strong>${approval.agent}</strong> wants to run <code>${approval.toolName}</code> and waits for your decision.</p>
    <pre class="args">${formatJson(approval.arguments ?? {})}</pre>
    <div class="row">
      <button type="button" class="approve" disabled=${busy} onClick=${choose("approve")}>Approve</button>
      <button type="button" class="deny secondary" disabled=${busy} onClick=${choose("deny")}>Deny</button>
      ${busy && !error ? html`<span class="muted" role="status">the turn goes on…</span>` : null}
    </div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  </li>`;
}

export function Thread({ agent, instanceKey, onSent }) {
  const [stored, setStored] = useState({ items: [], loaded: false });
  const [live, setLive] = useState(undefined);
  const [held, setHeld] = useState([]);
  const [draft, setDraft] = useState("");
  const input = useRef();
  const bottom = useRef();

  const refresh = async () => {
    const [answer, events, pending] = await Promise.all([
      loadMessages(agent, instanceKey).catch((failure) =>
        failure.status === 404 ? { messages: [] } : Promise.reject(failure),
      ),
      instanceEvents(agent, instanceKey).catch(() => ({ events: [] })),
      loadApprovals().catch(() => ({ approvals: [] })),
    ]);
    const items = threadItems(answer.messages, events.events).map((item) => ({ ...item, agent }));
    setStored({ items, loaded: true });
    setHeld((pending.approvals ?? []).filter((item) => item.agent === agent && item.instanceKey === instanceKey));
    return items;
  };
  useEffect(() => {
    setLive(undefined);
    void refresh().catch(() => setStored({ items: [], loaded: true }));
  }, [agent, instanceKey]);
  useEffect(() => bottom.current?.scrollIntoView({ block: "end" }), [stored, live, held]);

  const finished = async (outcome) => {
    const items = await refresh().catch(() => stored.items);
    setLive((was) => (was ? { ...was, outcome, settledAt: items.length } : was));
    onSent?.();
  };

  /** Streams one turn's frames (a sent message's, or a resumed one's) into the live reply, then refreshes. */
  const stream = async (turn, run) => {
    setLive(turn);
    const update = (change) => setLive((was) => ({ ...was, ...change(was) }));
    let outcome;
    try {
      await run((frame) => {
        if (frame.event === "delta") update((was) => ({ text: was.text + (frame.data.text ?? "") }));
        else if (frame.event === "restarted") update(() => ({ text: "" }));
        else if (frame.event === "tool")
          update((was) => {
            const calls = was.calls.filter((call) => call.callId !== frame.data.callId);
            const before = was.calls.find((call) => call.callId === frame.data.callId) ?? {};
            return { calls: [...calls, { ...before, ...frame.data, status: frame.data.status ?? "running" }] };
          });
        else if (frame.event === "done") outcome = frame.data;
        else if (frame.event === "error") update(() => ({ error: frame.data?.error?.message ?? "the stream failed" }));
      });
    } catch (failure) {
      update(() => ({ error: failure.message }));
    }
    update(() => ({ streaming: false, outcome }));
    await finished(outcome);
  };

  const submit = async (event) => {
    event?.preventDefault();
    const text = draft.trim();
    if (!text || live?.streaming) return;
    setDraft("");
    input.current?.focus();
    await stream({ input: text, text: "", calls: [], streaming: true }, (onFrame) =>
      send({ input: text, agent, instanceKey }, onFrame),
    );
  };

  const decideHeld = async (approval, decision) => {
    setHeld((was) => was.filter((item) => item.id !== approval.id));
    await stream({ decided: { approval, decision }, text: "", calls: [], streaming: true }, (onFrame) =>
      decide(approval.id, decision, onFrame),
    );
  };

  const awaiting = live?.outcome?.status === "awaiting_approval" && held.length > 0;
  const showLive = live && (live.streaming || live.settledAt === undefined || live.error);
  return html`<div class="thread" data-agent=${agent} data-instance=${instanceKey}>
    <ol class="messages" id="thread-messages" aria-live="polite" aria-label=${`Conversation with ${agent}/${instanceKey}`}>
      ${
        stored.loaded && stored.items.length === 0 && !live
          ? html`<li class="empty"><p>No messages with <strong>${agent}/${instanceKey}</strong> yet.</p>
              <p class="muted">Write below and press Enter: the reply streams in here, with every tool call it makes.</p></li>`
          : null
      }
      ${stored.items.map((item) => html`<${ThreadItem} key=${item.id} item=${item} />`)}
      ${
        showLive
          ? html`${
              live.input === undefined
                ? html`<li class="message system" data-role="system"><p class="muted">You chose to ${live.decided.decision} ${live.decided.approval.toolName}; the turn goes on.</p></li>`
                : html`<li class="message user pending" data-role="user"><div class="meta"><span class="who">You</span></div><p class="plain">${live.input}</p></li>`
            }
              <li class="message assistant live" data-role="assistant" aria-busy=${live.streaming ? "true" : "false"}>
                <div class="meta"><span class="who">${agent}</span>${live.streaming ? html`<span class="muted" role="status"> writing…</span>` : null}</div>
                ${live.calls.map((call) => html`<${ToolCall} key=${call.callId} call=${call} />`)}
                ${live.text ? html`<${Markdown} text=${live.text} />` : null}
                ${live.error ? html`<p class="error" role="alert">${live.error}</p>` : null}
              </li>`
          : null
      }
      ${held.map((approval) => html`<${Approval} key=${approval.id} approval=${approval} onDecide=${decideHeld} />`)}
      <li ref=${bottom} class="end" aria-hidden="true"></li>
    </ol>
    <form class="composer" onSubmit=${submit}>
      <label for="composer-input" class="sr-only">Message to ${agent}</label>
      <textarea
        id="composer-input"
        ref=${input}
        rows="2"
        placeholder=${awaiting ? "Decide the approval above first…" : `Message ${agent}/${instanceKey} (Enter sends, Shift+Enter a new line)`}
        value=${draft}
        onInput=${(event) => setDraft(event.currentTarget.value)}
        onKeyDown=${(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.isComposing) void submit(event);
        }}
      ></textarea>
      <button type="submit" id="composer-send" disabled=${!draft.trim() || live?.streaming}>Send</button>
    </form>
  </div>`;
}
