// The studio's one way to the HTTP API (a typed client may replace it): every call sends the bearer token the person
// gave (kept in this tab's sessionStorage, never a cookie), a 401 asks for it again, and text/event-stream answers
// are read from fetch's body as SSE frames (EventSource cannot send an Authorization header).

const TOKEN_KEY = "goondan.token";
let askForToken = () => {};

export function onUnauthorized(handler) {
  askForToken = handler;
}

export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers(extra = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { ...extra, authorization: `Bearer ${token}` } : extra;
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code;
  }
}

/** Calls the API and returns the JSON answer; throws ApiError on a non-2xx answer. */
export async function api(path, options = {}) {
  const init = {
    method: options.method ?? "GET",
    headers: headers(options.body === undefined ? {} : { "content-type": "application/json" }),
  };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  const response = await fetch(path, init);
  if (response.status === 401) askForToken();
  const body = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** Splits SSE text into frames; returns the frames and what is left of an unfinished one. */
function frames(buffer) {
  const found = [];
  let end;
  let rest = buffer;
  while ((end = rest.indexOf("\n\n")) >= 0) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    let event = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length === 0) continue; // a comment (open, heartbeat)
    const text = data.join("\n");
    try {
      found.push({ event, data: JSON.parse(text) });
    } catch {
      found.push({ event, data: text });
    }
  }
  return { found, rest };
}

/** Posts (or gets) and reads the answer as SSE, calling onFrame({event, data}) per frame; throws ApiError when it is not SSE. */
export async function sse(path, options, onFrame, signal) {
  const accept = { accept: "text/event-stream" };
  const init = {
    method: options.method ?? "GET",
    headers: headers(options.body === undefined ? accept : { ...accept, "content-type": "application/json" }),
    signal,
  };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  const response = await fetch(path, init);
  if (response.status === 401) askForToken();
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream"))
    throw new ApiError(response.status, await response.json().catch(() => undefined));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const { found, rest } = frames(buffer + value.replaceAll("\r\n", "\n"));
    buffer = rest;
    for (const frame of found) onFrame(frame);
  }
}

const path = (...parts) => parts.map(encodeURIComponent).join("/");

export const swarm = () => api("/v1/swarm");
export const processes = () => api("/v1/processes");
export const instances = () => api("/v1/instances");
export const messages = (agent, key) => api(`/v1/instances/${path(agent, key)}/messages`);
export const instanceEvents = (agent, key) => api(`/v1/instances/${path(agent, key)}/events?limit=1000`);
export const recentEvents = () => api("/v1/runtime-events?limit=1000");
export const trace = (traceId) => api(`/v1/traces/${path(traceId)}`);
export const span = (traceId, spanId) => api(`/v1/traces/${path(traceId)}/spans/${path(spanId)}`);
export const approvals = () => api("/v1/approvals");
export const evalRuns = () => api("/v1/evals");
export const schedules = () => api("/v1/schedules");
export const runSchedule = (name) => api(`/v1/schedules/${path(name)}/run`, { method: "POST" });
export const evalRun = (runId) => api(`/v1/evals/${path(runId)}`);
/** Decides an approval with stream: true; onFrame gets the decided approval, the resumed turn's progress and done. */
export const decide = (id, decision, onFrame, signal) =>
  sse(
    `/v1/approvals/${path(id)}`,
    { method: "POST", body: { decision, approver: "studio", stream: true } },
    onFrame,
    signal,
  );

/** POST /v1/events with stream: true; onFrame gets delta, tool, restarted, done and error frames. */
export const send = (body, onFrame, signal) =>
  sse("/v1/events", { method: "POST", body: { ...body, stream: true } }, onFrame, signal);

/** GET /v1/watch: every runtime event after the `after` cursor (when given), then as they happen, until `signal` aborts. */
export const watch = (onEvent, signal, after) =>
  sse(
    after === undefined ? "/v1/watch" : `/v1/watch?after=${encodeURIComponent(after)}`,
    {},
    (frame) => frame.event === "runtime" && onEvent(frame.data),
    signal,
  );
