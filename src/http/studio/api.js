// The studio's one way to the HTTP API: every call sends the bearer token the person gave (kept in this tab's
// sessionStorage, never a cookie), a 401 asks for it again, and text/event-stream answers are read from fetch's
// body as SSE frames (EventSource cannot send an Authorization header).

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

/** Posts (or gets) and reads the answer as SSE: calls onFrame({event, data}) per frame; returns the Response when it is not SSE. */
export async function sse(path, options, onFrame, signal) {
  const init = {
    method: options.method ?? "GET",
    headers: headers(
      options.body === undefined
        ? { accept: "text/event-stream" }
        : { accept: "text/event-stream", "content-type": "application/json" },
    ),
    signal,
  };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  const response = await fetch(path, init);
  if (response.status === 401) askForToken();
  if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return response;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return undefined;
    buffer += value.replaceAll("\r\n", "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length === 0) continue; // a heartbeat comment
      const text = data.join("\n");
      let parsed = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // plain text data
      }
      onFrame({ event, data: parsed });
    }
  }
}

/** Creates an element with text and attributes; never parses HTML. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    if (name === "class") node.className = value;
    else if (name === "style")
      Object.assign(node.style, value); // CSSOM, which the page's CSP allows (style="" it refuses)
    else node.setAttribute(name, String(value));
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}
