/**
 * The loopback LLM's types: what a test scripts (replies, tool calls, failures, match rules, script files,
 * a responder function) and what the server records and hands back (requests, the running server).
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
  /** Streaming: wait this long between SSE chunks (a model writing slowly). Default 0. */
  chunkDelayMs?: number;
  /** Streaming: split the text into this many deltas. Default 3. */
  textPieces?: number;
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

export type LoopbackResponder = (
  request: LoopbackRequest,
) => LoopbackReply | undefined | Promise<LoopbackReply | undefined>;

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
  /** Streaming: when the first chunk and the end of the answer were written (epoch ms). */
  firstByteAt?: number;
  finishedAt?: number;
  /** Streaming: when the first chunk with text was written, on `performance.now()` (this process's clock), for latency figures. */
  firstTextPerf?: number;
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
