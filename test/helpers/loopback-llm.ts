/**
 * An OpenAI-compatible chat-completions test server on 127.0.0.1 (Bun.serve, port 0). It answers
 * `POST /v1/chat/completions` from a script — a queue of replies, rules matched on the request, or a function —
 * in JSON or SSE (`stream: true`, incl. tool_call deltas and `[DONE]`), injects failures (HTTP status with
 * Retry-After, delays, malformed bodies) and records every request so tests assert on what the model was shown.
 * A request with nothing scripted for it gets HTTP 400 `loopback_script_exhausted` and is listed in
 * `unexpected` (fail loudly). `GET /__requests` returns the recorded requests, for tests in another process.
 *
 * CLI: `bun test/helpers/loopback-llm.ts --script file.json` prints `{"port","url"}` as one JSON line and serves
 * until SIGTERM/SIGINT. The script file is `LoopbackScriptFile` (or a bare array of replies).
 */

export interface LoopbackToolCall {
  /** Default `call_<n>` (n counts every tool call the server has produced). */
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent as is (so malformed arguments can be scripted). */
  args?: unknown;
}

export interface LoopbackUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface LoopbackFailure {
  status: number;
  /** Seconds (number) or any header value (string). */
  retryAfter?: number | string;
  /** Response body; default an OpenAI-style `{error: {message, type, code}}`. */
  body?: string;
}

export interface LoopbackReply {
  text?: string;
  toolCalls?: LoopbackToolCall[];
  usage?: LoopbackUsage;
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  /** Wait before answering (aborts quietly when the client hangs up). */
  delayMs?: number;
  /** Answer with this HTTP error instead. */
  fail?: LoopbackFailure;
  /** Answer 200 with a body that is not valid JSON (or a broken SSE chunk when streaming). */
  malformed?: boolean;
}

export interface LoopbackMatch {
  /** Substring of the system prompt(s). */
  system?: string;
  /** Substring of the last user message. */
  lastUser?: string;
  /** Role of the last message (`user`, `tool`, `assistant`). */
  lastRole?: string;
  /** Name of a tool offered in the request. */
  hasTool?: string;
}

export interface LoopbackRule {
  match: LoopbackMatch;
  reply: LoopbackReply;
  /** How many times the rule may answer; default unlimited. */
  times?: number;
}

export interface LoopbackScriptFile {
  replies?: LoopbackReply[];
  rules?: LoopbackRule[];
  /** Used when neither a rule nor the queue answers. */
  fallback?: LoopbackReply;
}

export type LoopbackResponder = (request: LoopbackRequest) => LoopbackReply | undefined | Promise<LoopbackReply | undefined>;

export interface LoopbackLlmOptions {
  /** Queue of replies, consumed in order. */
  replies?: LoopbackReply[];
  /** Tried (in order) before the queue; a rule with `times` is consumed. */
  rules?: LoopbackRule[];
  /** A function of the request; returning undefined falls through to rules and the queue. */
  respond?: LoopbackResponder;
  fallback?: LoopbackReply;
  /** Default 0 (a free port). */
  port?: number;
  /** Model id echoed in responses; default `loopback`. */
  model?: string;
}

export interface LoopbackMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  [key: string]: unknown;
}

export interface LoopbackRequestBody {
  model?: string;
  messages: LoopbackMessage[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  stream?: boolean;
  [key: string]: unknown;
}

export interface LoopbackRequest {
  index: number;
  path: string;
  body: LoopbackRequestBody;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  stream: boolean;
  receivedAt: number;
}

export interface LoopbackLlm {
  /** Base URL for `Model.spec.endpoint`, e.g. `http://127.0.0.1:1234/v1`. */
  url: string;
  port: number;
  requests: LoopbackRequest[];
  /** Requests nothing was scripted for (each got HTTP 400). */
  unexpected: LoopbackRequest[];
  /** Append replies to the queue. */
  push(...replies: LoopbackReply[]): void;
  /** Replies still queued. */
  remaining(): number;
  close(): Promise<void>;
}

/** Text of a message's content (string or array of text parts). */
export function messageText(message: LoopbackMessage | undefined): string {
  if (message === undefined) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : "")).join("");
  }
  return "";
}

/** All system messages joined with a blank line. */
export function systemPrompt(request: LoopbackRequest): string {
  return request.body.messages.filter((message) => message.role === "system").map(messageText).join("\n\n");
}

export function toolNames(request: LoopbackRequest): string[] {
  return (request.body.tools ?? []).map((tool) => tool.function.name);
}

/** Tool-result messages of the request, contents JSON-parsed when possible. */
export function toolResults(request: LoopbackRequest): { toolCallId: string; content: unknown }[] {
  return request.body.messages
    .filter((message) => message.role === "tool")
    .map((message) => {
      const text = messageText(message);
      let content: unknown = text;
      try {
        content = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      return { toolCallId: message.tool_call_id ?? "", content };
    });
}

export function lastUserText(request: LoopbackRequest): string {
  const users = request.body.messages.filter((message) => message.role === "user");
  return messageText(users[users.length - 1]);
}

function matches(match: LoopbackMatch, request: LoopbackRequest): boolean {
  const messages = request.body.messages;
  if (match.system !== undefined && !systemPrompt(request).includes(match.system)) return false;
  if (match.lastUser !== undefined && !lastUserText(request).includes(match.lastUser)) return false;
  if (match.lastRole !== undefined && messages[messages.length - 1]?.role !== match.lastRole) return false;
  if (match.hasTool !== undefined && !toolNames(request).includes(match.hasTool)) return false;
  return true;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

export async function startLoopbackLlm(options: LoopbackLlmOptions = {}): Promise<LoopbackLlm> {
  const queue = [...(options.replies ?? [])];
  const rules = (options.rules ?? []).map((rule) => ({ ...rule }));
  const requests: LoopbackRequest[] = [];
  const unexpected: LoopbackRequest[] = [];
  const modelId = options.model ?? "loopback";
  let toolCallCounter = 0;
  let responseCounter = 0;

  const pick = async (request: LoopbackRequest): Promise<LoopbackReply | undefined> => {
    const fromFunction = options.respond === undefined ? undefined : await options.respond(request);
    if (fromFunction !== undefined) return fromFunction;
    for (const rule of rules) {
      if ((rule.times === undefined || rule.times > 0) && matches(rule.match, request)) {
        if (rule.times !== undefined) rule.times -= 1;
        return rule.reply;
      }
    }
    return queue.shift() ?? options.fallback;
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    idleTimeout: 0,
    fetch: async (httpRequest) => {
      const url = new URL(httpRequest.url);
      if (httpRequest.method === "GET" && url.pathname === "/__requests") return Response.json({ requests, unexpected });
      if (httpRequest.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
        return Response.json({ error: { message: `loopback-llm: no route ${httpRequest.method} ${url.pathname}`, type: "not_found" } }, { status: 404 });
      }
      let body: LoopbackRequestBody;
      try {
        body = (await httpRequest.json()) as LoopbackRequestBody;
      } catch {
        return Response.json({ error: { message: "loopback-llm: request body is not JSON", type: "invalid_request_error" } }, { status: 400 });
      }
      const headers: Record<string, string> = {};
      httpRequest.headers.forEach((value, key) => {
        headers[key.toLowerCase()] = value;
      });
      const request: LoopbackRequest = { index: requests.length, path: url.pathname, body, headers, stream: body.stream === true, receivedAt: Date.now() };
      requests.push(request);
      const reply = await pick(request);
      if (reply === undefined) {
        unexpected.push(request);
        return Response.json({ error: { message: "loopback-llm: script exhausted, nothing scripted for this request", type: "invalid_request_error", code: "loopback_script_exhausted" } }, { status: 400 });
      }
      if (reply.delayMs !== undefined && reply.delayMs > 0) await sleep(reply.delayMs, httpRequest.signal);
      if (reply.fail !== undefined) return failureResponse(reply.fail);
      responseCounter += 1;
      const toolCalls = (reply.toolCalls ?? []).map((call) => {
        toolCallCounter += 1;
        return { id: call.id ?? `call_${toolCallCounter}`, name: call.name, arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {}) };
      });
      const shaped: ShapedReply = {
        id: `chatcmpl-loopback-${responseCounter}`,
        model: modelId,
        text: reply.text,
        toolCalls,
        finishReason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
        usage: { prompt_tokens: reply.usage?.promptTokens ?? 10, completion_tokens: reply.usage?.completionTokens ?? 5, total_tokens: (reply.usage?.promptTokens ?? 10) + (reply.usage?.completionTokens ?? 5) },
        malformed: reply.malformed === true,
      };
      return request.stream ? streamResponse(shaped) : jsonResponse(shaped);
    },
  });

  const port = server.port ?? 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    unexpected,
    push: (...replies) => {
      queue.push(...replies);
    },
    remaining: () => queue.length,
    close: async () => {
      await server.stop(true);
    },
  };
}

interface ShapedReply {
  id: string;
  model: string;
  text: string | undefined;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  malformed: boolean;
}

function failureResponse(failure: LoopbackFailure): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (failure.retryAfter !== undefined) headers["retry-after"] = String(failure.retryAfter);
  const body = failure.body ?? JSON.stringify({ error: { message: `loopback-llm: scripted HTTP ${failure.status}`, type: "scripted_failure", code: String(failure.status) } });
  return new Response(body, { status: failure.status, headers });
}

function jsonResponse(reply: ShapedReply): Response {
  if (reply.malformed) return new Response("{\"id\": \"broken\", \"choices\": [", { status: 200, headers: { "content-type": "application/json" } });
  const message: Record<string, unknown> = { role: "assistant", content: reply.text ?? null };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }));
  }
  return Response.json({
    id: reply.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: reply.model,
    choices: [{ index: 0, message, finish_reason: reply.finishReason }],
    usage: reply.usage,
  });
}

/** Splits a string into at most `parts` pieces so clients see real deltas. */
function pieces(text: string, parts: number): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result;
}

function streamResponse(reply: ShapedReply): Response {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id: reply.id, object: "chat.completion.chunk", created, model: reply.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
  const events: string[] = [chunk({ role: "assistant", content: "" })];
  if (reply.malformed) {
    events.push("data: {\"id\": \"broken\", \"choices\": [\n\n");
  } else {
    for (const piece of pieces(reply.text ?? "", 3)) events.push(chunk({ content: piece }));
    reply.toolCalls.forEach((call, index) => {
      events.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
      for (const piece of pieces(call.arguments, 2)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    events.push(chunk({}, reply.finishReason, { usage: reply.usage }));
  }
  events.push("data: [DONE]\n\n");
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events) controller.enqueue(encoder.encode(event));
      controller.close();
    },
  });
  return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
}

export async function readScriptFile(path: string): Promise<LoopbackScriptFile> {
  const parsed = (await Bun.file(path).json()) as LoopbackScriptFile | LoopbackReply[];
  return Array.isArray(parsed) ? { replies: parsed } : parsed;
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const scriptIndex = argv.indexOf("--script");
  const portIndex = argv.indexOf("--port");
  const script: LoopbackScriptFile = scriptIndex >= 0 && argv[scriptIndex + 1] !== undefined ? await readScriptFile(argv[scriptIndex + 1] as string) : {};
  const server = await startLoopbackLlm({ ...script, port: portIndex >= 0 ? Number(argv[portIndex + 1]) : 0 });
  process.stdout.write(`${JSON.stringify({ port: server.port, url: server.url })}\n`);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
