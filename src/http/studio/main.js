// The studio page: a header with the views (Agents, Threads, Traces, Processes, Schedules, Evals) chosen by the URL's hash, and
// the token form when the API asks for one. Each view loads its own data through api.js.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { AgentsView } from "./agents-view.js";
import { EvalsView } from "./evals-view.js";
import { onUnauthorized, processes, setToken } from "./api.js";
import { html } from "./html.js";
import { ProcessesView } from "./processes-view.js";
import { SchedulesView } from "./schedules-view.js";
import { ThreadsView } from "./threads-view.js";
import { TracesView } from "./traces-view.js";

const VIEWS = [
  ["agents", "Agents", AgentsView],
  ["threads", "Threads", ThreadsView],
  ["traces", "Traces", TracesView],
  ["processes", "Processes", ProcessesView],
  ["schedules", "Schedules", SchedulesView],
  ["evals", "Evals", EvalsView],
];

function where() {
  const [view = "agents", ...parts] = location.hash
    .replace(/^#\/?/, "")
    .split("/")
    .filter((part) => part !== "")
    .map(decodeURIComponent);
  return { view: VIEWS.some(([id]) => id === view) ? view : "agents", parts };
}

function TokenForm({ onDone }) {
  const [error, setError] = useState("");
  const submit = async (event) => {
    event.preventDefault();
    setToken(new FormData(event.currentTarget).get("token"));
    try {
      await processes();
      onDone();
    } catch (failure) {
      setError(failure.message);
    }
  };
  return html`<form class="token card" id="token-form" onSubmit=${submit}>
    <h2>This goondan asks for its API token</h2>
    <p class="muted">Open the login link goondan run printed (or run goondan login), or paste a token: GOONDAN_API_TOKEN, a tokens-file credential's, or the state root's api-token. A pasted token stays in this tab only.</p>
    <label for="token-input">API token</label>
    <div class="row">
      <input id="token-input" name="token" type="password" autocomplete="off" required autofocus />
      <button type="submit">Connect</button>
    </div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  </form>`;
}

function App() {
  const [place, setPlace] = useState(where());
  const [needsToken, setNeedsToken] = useState(false);
  const [session, setSession] = useState(0);
  useEffect(() => {
    const changed = () => setPlace(where());
    addEventListener("hashchange", changed);
    onUnauthorized(() => setNeedsToken(true));
    return () => removeEventListener("hashchange", changed);
  }, []);
  const [, title, View] = VIEWS.find(([id]) => id === place.view);
  useEffect(() => {
    document.title = `${title} · goondan studio`;
  }, [title]);
  return html`
    <a class="skip" href="#main" onClick=${(event) => (event.preventDefault(), document.getElementById("main")?.focus())}
      >Skip to content</a
    >
    <header class="top">
      <span class="brand">goondan <span>studio</span></span>
      <nav aria-label="Views">
        ${VIEWS.map(
          ([id, label]) =>
            html`<a href=${`#/${id}`} aria-current=${place.view === id ? "page" : undefined} data-view=${id}>${label}</a>`,
        )}
      </nav>
    </header>
    <main id="main" tabindex="-1">
      ${
        needsToken
          ? html`<${TokenForm}
              onDone=${() => {
                setNeedsToken(false);
                setSession((n) => n + 1);
              }}
            />`
          : html`<${View} key=${`${place.view}:${session}`} parts=${place.parts} />`
      }
    </main>
  `;
}

const root = document.getElementById("app");
root.replaceChildren();
render(html`<${App} />`, root);
