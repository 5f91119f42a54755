/**
 * The Tool system's contracts: handlers and their ToolContext, ToolResult, catalog items, the toolCall
 * middleware context, and the inter-agent runtime API that `ctx.runtime` exposes. Tool authors import
 * these types from "goondan".
 */
import type { Logger } from "../shared/logger.ts";
import type { JsonObject, JsonValue } from "../shared/json.ts";
import type { RestartAnswer } from "../protocol/restart-answer.ts";
import type { Message } from "../protocol/conversation.ts";
import type { Reply } from "../protocol/turn-outcome.ts";
import type { SuspendRequest, WakeUp } from "../protocol/suspension.ts";

export type { Message, ToolError, ToolResult } from "../protocol/conversation.ts";

export interface ToolContext {
  readonly agentName: string;
  readonly instanceKey: string;
  readonly turnId: string;
  readonly toolCallId: string;
  readonly message: Message;
  /** The instance's workspace directory, made the first time a tool reads this; file and shell tools resolve relative paths here. */
  readonly workdir: string;
  readonly logger: Logger;
  /** Fired on timeout or shutdown. */
  readonly signal: AbortSignal;
  /** Inter-agent API, backed by the orchestrator over IPC. */
  readonly runtime: AgentToolRuntime;
  /** The Tool resource's `spec.config` (e.g. file-system `root`), `{}` when unset. */
  readonly config: JsonObject;
  /**
   * Suspends the turn durably after this call (the built-in `timer` tool): return what it returns. The call is held
   * until `until` (epoch ms), or until the named `signal` arrives with `until` as its timeout; it survives a child
   * crash and a restart, and then runs again with `wakeUp` set. Absent where a turn cannot suspend.
   */
  readonly suspend?: (request: SuspendRequest) => unknown;
  /** Set when the call runs again after a suspension: how it was woken. */
  readonly wakeUp?: WakeUp;
}

export type ToolHandler = (ctx: ToolContext, input: JsonObject) => Promise<unknown> | unknown;

/** What an extension says of a tool it registers (`api.tools.register(item, handler, options)`). */
export interface ToolRegisterOptions {
  /** Past it (ms, default 60000) the call ends with E_TOOL_TIMEOUT and the handler's ctx.signal fires. */
  timeoutMs?: number;
  /**
   * Running it twice with the same arguments does no more than running it once (a read, a pure function): its call
   * is recorded before it runs without waiting for the disk. Default false.
   */
  idempotent?: boolean;
}

export interface ToolSource {
  type: "config" | "extension" | "mcp";
  name: string;
  mcp?: { extensionName: string; serverName?: string };
}

export interface ToolCatalogItem {
  /** `{resource}__{export}` */
  name: string;
  description?: string;
  parameters?: JsonObject;
  source?: ToolSource;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Whatever the model sent; not yet known to be an object. */
  args: unknown;
}

export interface ToolCallMiddlewareContext {
  readonly toolName: string;
  readonly toolCallId: string;
  /**
   * Mutable: middleware may rewrite the arguments before validation. Until validation this holds exactly what the
   * model sent, which may not be an object at all (null, an array, a JSON string…): check before reading keys.
   * Whatever is here after the middleware chain must be a JSON object, or the call fails with E_TOOL_INVALID_ARGS.
   */
  args: JsonObject;
  metadata: Record<string, JsonValue>;
}

/**
 * A pending handle returned by a handler (build it with `pending()`): the model sees `{status: "pending", handle,
 * output?}` at once; when `completion` is set, its outcome is shown to the model before a later step.
 */
export interface PendingHandle {
  readonly __goondanPending: true;
  readonly handle: string;
  readonly output?: JsonValue;
  /** Settles when the work is done; the agent awaits it in the background (see `pending()`). */
  readonly completion?: PromiseLike<unknown>;
}

// ---- inter-agent runtime (ctx.runtime) --------------------------------------------------------

/** The trace context and call chain a runtime call carries: those of the tool call that makes it. */
export interface RuntimeCallContext {
  traceId?: string;
  /** The tool call's span: the parent of the turn a request starts. */
  parentSpanId?: string;
  /** Agent names from the original caller to this agent, inclusive. */
  callChain: string[];
  /**
   * Stable for one tool call (its event id and tool call id): requests it makes get correlation ids derived from it,
   * so running the call again after a restart reattaches to the same requests instead of sending new ones.
   */
  callKey?: string;
}

export interface AgentRequestOptions {
  /** Target agent name (must be in the Swarm). */
  target: string;
  input: string;
  /** Default: the Swarm's instanceKey. */
  instanceKey?: string;
  /** Default: the Swarm's `policy.requestTimeoutMs`. */
  timeoutMs?: number;
  /** Return a pending handle at once; the reply arrives before a later step. */
  async?: boolean;
  /** Attached to the event the target receives (`AgentEvent.metadata`). */
  metadata?: JsonObject;
  /** The type of the event the target receives. Default: `agent.request` (request) or `agent.send` (send). */
  eventType?: string;
  /** `send` only: deliver it at this time (epoch ms), not before; it waits durably in the target's inbox. */
  notBefore?: number;
}

export interface AgentSpawnOptions {
  target: string;
  instanceKey?: string;
  /** Working directory for the spawned instance, relative to the caller's workspace. */
  cwd?: string;
}

export interface AgentListOptions {
  /** List every instance of the swarm, not only those the caller spawned. Default: false. */
  includeAll?: boolean;
}

/** The reply of a blocking `ctx.runtime.request`: the callee's turn outcome (status "error" for E_AGENT_* failures). */
export type AgentReply = Reply;

export interface AgentInstanceInfo {
  agent: string;
  instanceKey: string;
  status: string;
  pid?: number;
}

export interface AgentToolRuntime {
  /** Blocking: resolves with the target's reply (status "error" for E_AGENT_* failures, never throws for them). */
  request(options: AgentRequestOptions & { async?: false }): Promise<AgentReply>;
  /** Async: resolves once accepted, with the correlationId used as the pending handle. */
  request(options: AgentRequestOptions & { async: true }): Promise<{ correlationId: string }>;
  send(options: Omit<AgentRequestOptions, "async" | "timeoutMs">): Promise<{ eventId: string }>;
  spawn(options: AgentSpawnOptions): Promise<AgentInstanceInfo>;
  list(options?: AgentListOptions): Promise<{ instances: AgentInstanceInfo[] }>;
  catalog(): Promise<{ agents: { name: string; description?: string; entry: boolean }[] }>;
  /** Validate the bundle on disk and, when valid, restart the orchestrator after the current turn commits. */
  restart(options: { reason: string }): Promise<RestartAnswer>;
}
