// The pieces of a thread: an instance's stored messages folded into what a person reads (their text as sanitised
// markdown, each tool call inline with its args, result, status and duration, and the trace of the turn that wrote
// it), and the components that draw them. marked renders the markdown and DOMPurify cleans it before it is shown.
import DOMPurify from "dompurify";
import { Marked } from "marked";
import { formatJson, formatMs, formatTime, html, link } from "./html.js";

// An image in a reply without a text alternative gets one, so a screen reader says what is there.
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "IMG" && !node.getAttribute("alt")) node.setAttribute("alt", "image in the reply");
});

const escapeHtml = (text) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]);

// Raw HTML in a reply is shown as the text it is, never parsed as markup; markdown's own output still goes through
// DOMPurify (a `javascript:` link, say).
const markdown = new Marked({
  async: false,
  gfm: true,
  breaks: true,
  renderer: { html: ({ text }) => escapeHtml(text) },
});

/** Markdown as sanitised HTML: no script, no handler, no foreign element survives. */
export function Markdown({ text }) {
  const clean = DOMPurify.sanitize(markdown.parse(text ?? ""));
  return html`<div class="markdown" dangerouslySetInnerHTML=${{ __html: clean }}></div>`;
}

export function ToolCall({ call }) {
  const status = call.status ?? "running";
  return html`<details class=${`tool-call call-${status}`} data-tool=${call.name} data-call=${call.callId}>
    <summary>
      <span class="tool-name">${call.name}</span>
      ${call.agent ? html`<span class="muted"> · ${call.agent}</span>` : null}
      <span class=${`status status-${status}`}>${status}</span>
      ${call.durationMs === undefined ? null : html`<span class="duration">${formatMs(call.durationMs)}</span>`}
    </summary>
    <div class="tool-body">
      <h4>Arguments</h4>
      <pre class="args">${call.args === undefined ? "–" : formatJson(call.args)}</pre>
      <h4>Result</h4>
      <pre class="result">${call.result === undefined ? (status === "running" ? "running…" : "–") : formatJson(call.result)}</pre>
    </div>
  </details>`;
}

/** The text parts of a message's content, joined by `separator`. */
export const textOf = (content, separator = "\n") =>
  typeof content === "string"
    ? content
    : (content ?? [])
        .filter((part) => part.type === "text")
        .map((part) => part.text)
        .join(separator);

/** What a tool-result part holds: the value the tool gave ({status, output} or {status, error}). */
const resultOf = (part) =>
  part.output?.type === "json" || part.output?.type === "text" ? part.output.value : part.output;

/**
 * The stored messages as thread items (`user`, `assistant` with its tool calls), with the trace of each turn and each
 * call's duration taken from the instance's runtime events.
 */
export function threadItems(messages, events) {
  const traceOfTurn = new Map();
  const ended = new Map();
  for (const event of events) {
    if (event.turnId && event.traceId) traceOfTurn.set(event.turnId, event.traceId);
    if (event.type === "tool.completed" || event.type === "tool.failed") ended.set(event.toolCallId, event);
  }
  const results = new Map();
  for (const message of messages)
    if (message.data.role === "tool")
      for (const part of message.data.content ?? [])
        if (part.type === "tool-result") results.set(part.toolCallId, resultOf(part));
  const items = [];
  for (const message of messages) {
    const { role, content } = message.data;
    if (role === "user") items.push({ id: message.id, role, text: textOf(content), at: message.createdAt });
    if (role !== "assistant") continue;
    const calls = (typeof content === "string" ? [] : content)
      .filter((part) => part.type === "tool-call")
      .map((part) => {
        const end = ended.get(part.toolCallId);
        const result = results.get(part.toolCallId);
        return {
          callId: part.toolCallId,
          name: part.toolName,
          args: part.input,
          result,
          status: end
            ? end.type === "tool.failed"
              ? "error"
              : "ok"
            : result === undefined
              ? "pending"
              : result?.status,
          durationMs: end?.durationMs,
        };
      });
    const turnId = message.metadata?.turnId;
    items.push({
      id: message.id,
      role,
      text: textOf(content),
      calls,
      at: message.createdAt,
      traceId: turnId ? traceOfTurn.get(turnId) : undefined,
    });
  }
  // A message a person wrote links to the trace of the turn it started (the reply's that follows it).
  items.forEach((item, index) => {
    if (item.role === "user") item.traceId = items.slice(index + 1).find((next) => next.role !== "user")?.traceId;
  });
  return items;
}

export function ThreadItem({ item }) {
  return html`<li class=${`message ${item.role}`} data-role=${item.role}>
    <div class="meta">
      <span class="who">${item.role === "user" ? "You" : (item.agent ?? "Agent")}</span>
      <time datetime=${item.at}>${formatTime(item.at)}</time>
      ${item.traceId ? html`<a class="trace-link" href=${link("traces", item.traceId)}>trace</a>` : null}
    </div>
    ${item.text ? (item.role === "user" ? html`<p class="plain">${item.text}</p>` : html`<${Markdown} text=${item.text} />`) : null}
    ${(item.calls ?? []).map((call) => html`<${ToolCall} key=${call.callId} call=${call} />`)}
  </li>`;
}
