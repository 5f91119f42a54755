// Threads: the instances of each agent (GET /v1/instances, polled) with their last message and when it was written,
// a form to start a thread with any agent of the swarm, and the chosen instance's thread (thread.js).
import { useEffect, useState } from "preact/hooks";
import { instances as loadInstances, messages as loadMessages, swarm as loadSwarm } from "./api.js";
import { every, formatTime, html, link } from "./html.js";
import { Thread } from "./thread.js";
import { textOf } from "./chat-items.js";

const lastText = (messages) => {
  for (const message of [...messages].reverse()) {
    const text = textOf(message.data.content, " ").trim();
    if (text) return text;
  }
  return "";
};

/** The last message of each instance, fetched again only when the instance changed. */
function useLastMessages(rows) {
  const [last, setLast] = useState({});
  useEffect(() => {
    for (const row of rows.slice(0, 50)) {
      const key = `${row.agent}/${row.instanceKey}`;
      if (last[key]?.updatedAt === row.updatedAt) continue;
      loadMessages(row.agent, row.instanceKey).then(
        ({ messages }) => setLast((was) => ({ ...was, [key]: { updatedAt: row.updatedAt, text: lastText(messages) } })),
        () => setLast((was) => ({ ...was, [key]: { updatedAt: row.updatedAt, text: "" } })),
      );
    }
  }, [rows]);
  return last;
}

function NewThread({ graph }) {
  const [agent, setAgent] = useState(graph.entryAgent);
  const [key, setKey] = useState("");
  const start = (event) => {
    event.preventDefault();
    location.hash = link("threads", agent, key.trim() || graph.instanceKey);
  };
  return html`<form class="new-thread" onSubmit=${start} aria-label="Start a thread">
    <label for="new-agent" class="sr-only">Agent</label>
    <select id="new-agent" value=${agent} onChange=${(event) => setAgent(event.currentTarget.value)}>
      ${graph.agents.map((item) => html`<option value=${item.name}>${item.name}${item.entry ? " (entry)" : ""}</option>`)}
    </select>
    <label for="new-key" class="sr-only">Instance key</label>
    <input id="new-key" placeholder=${`key (${graph.instanceKey})`} value=${key} onInput=${(event) => setKey(event.currentTarget.value)} />
    <button type="submit" class="secondary">Open</button>
  </form>`;
}

export function ThreadsView({ parts }) {
  const [graph, setGraph] = useState(undefined);
  const [rows, setRows] = useState([]);
  const [error, setError] = useState("");
  const last = useLastMessages(rows);
  const refresh = async () => {
    try {
      const answer = await loadInstances();
      setRows([...answer.instances].sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0)));
    } catch (failure) {
      setError(failure.message);
    }
  };
  useEffect(() => {
    loadSwarm().then(setGraph, (failure) => setError(failure.message));
    return every(3000, refresh);
  }, []);
  const [agent, instanceKey] = parts.length >= 2 ? parts : graph ? [graph.entryAgent, graph.instanceKey] : [];
  const byAgent = new Map();
  for (const row of rows) byAgent.set(row.agent, [...(byAgent.get(row.agent) ?? []), row]);
  return html`<section class="view threads" aria-labelledby="threads-title">
    <h1 id="threads-title" class="sr-only">Threads</h1>
    <aside class="thread-list" aria-label="Instances">
      ${graph ? html`<${NewThread} graph=${graph} />` : null}
      ${error ? html`<p class="error" role="alert">${error}</p>` : null}
      ${rows.length === 0 ? html`<p class="muted empty">No instance has run yet. Send a first message on the right: the instance appears here.</p>` : null}
      ${[...byAgent].map(
        ([name, list]) => html`<div class="agent-group">
          <h2>${name}</h2>
          <ul>
            ${list.map((row) => {
              const key = `${row.agent}/${row.instanceKey}`;
              const current = row.agent === agent && row.instanceKey === instanceKey;
              return html`<li>
                <a href=${link("threads", row.agent, row.instanceKey)} aria-current=${current ? "true" : undefined}
                  class="instance" data-instance=${key}>
                  <span class="key">${row.instanceKey}</span>
                  <time>${formatTime(row.updatedAt)}</time>
                  <span class="last">${last[key]?.text || (row.messages ? `${row.messages} messages` : "no messages yet")}</span>
                </a>
              </li>`;
            })}
          </ul>
        </div>`,
      )}
    </aside>
    ${
      agent
        ? html`<div class="thread-pane">
            <h2 class="thread-title">${agent}<span class="muted">/${instanceKey}</span></h2>
            <${Thread} key=${`${agent}/${instanceKey}`} agent=${agent} instanceKey=${instanceKey} onSent=${refresh} />
          </div>`
        : html`<p class="muted">Loading…</p>`
    }
  </section>`;
}
