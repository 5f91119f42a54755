// The studio's one way to the HTTP API: every call carries the session cookie the login link set (HttpOnly: this
// script never sees it), or, when the person pasted one instead, the bearer token (kept in this tab's sessionStorage).
// A 401 asks for a token, and text/event-stream answers are read from fetch's body by the typed client's SSE reader
// (src/client/, eventsource-parser; EventSource cannot send an Authorization header). The watch is the typed client's
// own: it resumes with the last event id after a dropped connection. The studio acts as its credential: it decides
// approvals as it, without naming an approver of its own.

import { createClient } from "../../client/goondan-client.ts";
import { sseMessages } from "../../client/sse-messages.ts";

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
  for await (const message of sseMessages(response.body))
    onFrame({ event: message.event ?? "message", data: parsed(message.data) });
}

function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
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
  sse(`/v1/approvals/${path(id)}`, { method: "POST", body: { decision, stream: true } }, onFrame, signal);

/** POST /v1/events with stream: true; onFrame gets delta, tool, restarted, done and error frames. */
export const send = (body, onFrame, signal) =>
  sse("/v1/events", { method: "POST", body: { ...body, stream: true } }, onFrame, signal);

/**
 * GET /v1/watch: every runtime event after the `after` cursor (when given), then as they happen, until `signal` aborts;
 * a dropped connection is resumed where it stopped (the typed client's watch).
 */
export async function watch(onEvent, signal, after) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const client = createClient({ baseUrl: location.origin, ...(token ? { token } : {}) });
  try {
    for await (const item of client.watch({ signal, ...(after === undefined ? {} : { after }) }))
      if (item.type === "runtime") onEvent(item.event);
  } catch (error) {
    if (error?.status === 401) askForToken();
    throw error;
  }
}
