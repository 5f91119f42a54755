/**
 * What an Extension sees: `register(api, config)` and the `ExtensionApi` (pipeline, tools, state, events,
 * logger, agent), plus the middleware contexts of the three pipelines (`turn`, `step`, `toolCall`). Middleware
 * is seed-style: `async (ctx) => { …; const result = await ctx.next(); …; return result }`; lower `priority`
 * runs outer (first); equal priorities keep registration order. Extension authors import these from "goondan".
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { ApprovalDecision } from "../../protocol/approval.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import type { Logger } from "../../shared/logger.ts";
import type {
  Message,
  ToolCallMiddlewareContext,
  ToolCatalogItem,
  ToolHandler,
  ToolResult,
} from "../../tools/types.ts";
import type { MessageEvent } from "../../protocol/conversation.ts";
import type { ConversationState } from "../conversation/conversation-state.ts";

export type { MessageEvent } from "../../protocol/conversation.ts";
export type { ConversationState } from "../conversation/conversation-state.ts";

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * What the turn pipeline returns: the turn's outcome (the one TurnOutcome), with its step count and token usage,
 * and `responseMessage`, the assistant message that answered (absent when the turn ended without one).
 */
export interface TurnResult extends TurnOutcome {
  steps: number;
  usage: TokenUsage;
  responseMessage?: Message;
}

export interface StepToolOutcome {
  toolCallId: string;
  toolName: string;
  result: ToolResult;
}

export interface StepResult {
  stepIndex: number;
  text: string;
  toolCalls: { id: string; name: string; args: unknown }[];
  toolResults: StepToolOutcome[];
  finishReason: string;
  usage: TokenUsage;
  /** Whether the turn runs another step. Step middleware may set it (e.g. to refuse ending the turn). */
  continueTurn: boolean;
}

/** What `ctx.agents.request` takes (the public Goondan shape). `input` defaults to "". */
export interface MiddlewareAgentRequest {
  target: string;
  input?: string;
  /** Default: the Swarm's instanceKey. */
  instanceKey?: string;
  /** Default: the Swarm's `policy.requestTimeoutMs`. */
  timeoutMs?: number;
  /** Return at once; the reply is shown to the model before a later step (like `agents__request` async). */
  async?: boolean;
  metadata?: JsonObject;
}

/**
 * Other agents of the swarm, from turn and step middleware, through the orchestrator (same rules as the `agents`
 * tool). A request answered with an error, or refused (cycle, depth, unknown agent), rejects with an Error
 * carrying `code` (`AGENT_REQUEST_TIMEOUT`, `CIRCULAR_CALL_DETECTED`, …).
 */
export interface MiddlewareAgentsApi {
  request(params: MiddlewareAgentRequest): Promise<{
    target: string;
    response: string;
    correlationId?: string;
    instanceKey?: string;
    accepted?: boolean;
    async?: boolean;
  }>;
  send(params: Omit<MiddlewareAgentRequest, "timeoutMs" | "async">): Promise<{ accepted: boolean; eventId: string }>;
  /** The agents of this swarm (as `agents__catalog` lists them). */
  catalog(): Promise<{ agents: { name: string; description?: string; entry: boolean }[] }>;
}

interface PipelineContextBase {
  readonly agentName: string;
  readonly instanceKey: string;
  readonly turnId: string;
  readonly traceId: string;
  readonly inputEvent: AgentEvent;
  /** The conversation as it stands now (after every event emitted so far). */
  readonly messages: readonly Message[];
  /** The public API's view: the turn's `baseMessages`, the `events` emitted since, and `nextMessages` (= messages). */
  readonly conversationState: ConversationState;
  /** Free-form, shared by the middlewares of one turn/step. */
  metadata: Record<string, JsonValue>;
  /** Changes the conversation durably (append / replace / remove / truncate). */
  emitMessageEvent(event: MessageEvent): void;
  /** Ask or tell other agents of the swarm. */
  readonly agents: MiddlewareAgentsApi;
}

export type TurnMiddlewareContext = PipelineContextBase;

export interface StepMiddlewareContext extends PipelineContextBase {
  readonly stepIndex: number;
  /** Rebuilt every step; edit it to change what the model is offered. */
  toolCatalog: ToolCatalogItem[];
  /** The system prompt of this step's model call: the Agent's own, fresh every step; middleware may add to it. */
  systemPrompt: string;
}

export interface PipelineContexts {
  turn: { context: TurnMiddlewareContext; result: TurnResult };
  step: { context: StepMiddlewareContext; result: StepResult };
  toolCall: { context: ToolCallMiddlewareContext; result: ToolResult };
}

export type PipelineType = keyof PipelineContexts;

export type PipelineMiddleware<T extends PipelineType> = (
  ctx: PipelineContexts[T]["context"] & { next(): Promise<PipelineContexts[T]["result"]> },
) => Promise<PipelineContexts[T]["result"]>;

/** The agent's own model, for an extension that needs one more call of it (outside the conversation, no tools). */
export interface ExtensionModel {
  /** Rejects with a coded error (MODEL_TIMEOUT, MODEL_RATE_LIMITED, …) when the model cannot answer. */
  generateText(request: {
    system?: string;
    prompt: string;
    maxOutputTokens?: number;
    signal?: AbortSignal;
  }): Promise<{ text: string; usage: TokenUsage }>;
}

export interface ExtensionApi {
  /** The extension's own name. */
  readonly name: string;
  readonly agent: {
    name: string;
    instanceKey: string;
    requiredTools: string[];
    tools: string[];
    /** The bundle's directory: relative paths in an extension's config are read from here (absent in hand-built test APIs). */
    bundleDir?: string;
  };
  pipeline: {
    register<T extends PipelineType>(type: T, middleware: PipelineMiddleware<T>, options?: { priority?: number }): void;
  };
  tools: {
    /** `options.timeoutMs` (default 60000): past it the call ends with E_TOOL_TIMEOUT and the handler's ctx.signal fires. */
    register(item: ToolCatalogItem, handler: ToolHandler, options?: { timeoutMs?: number }): void;
    /** Removes a tool this extension registered (the next step's catalog no longer has it); false when it has none by that name. */
    unregister(name: string): boolean;
  };
  /** Persisted per instance and per extension (extension-state.json). */
  state: {
    get(): JsonValue | undefined;
    set(value: JsonValue): Promise<void>;
  };
  events: {
    on(type: string, listener: (payload: JsonValue) => void): () => void;
    emit(type: string, payload: JsonValue): void;
  };
  logger: Logger;
  /** The agent's model (its params, timeout and retries), e.g. to summarise old turns. */
  model: ExtensionModel;
  /** Holding tool calls for a person's decision (toolCall middleware); absent in hand-built test APIs. */
  approvals?: ExtensionApprovals;
}

export interface HoldRequest {
  toolCallId: string;
  toolName: string;
  args: JsonObject;
  /** Past this many seconds without a decision the call is answered E_TOOL_APPROVAL_TIMEOUT. Absent: no deadline. */
  timeoutSeconds?: number;
  approvers?: string[];
}

/** `api.approvals`: what a toolCall middleware uses to hold a call for a person's decision (agent/loop/tool-approvals.ts). */
export interface ExtensionApprovals {
  /** The decision on this call of the current turn, once a person (or the deadline) made it. */
  decision(toolCallId: string): ApprovalDecision | undefined;
  /** Holds the call for a decision: the turn stops after it. Return the result it gives (never shown to the model). */
  hold(request: HoldRequest): ToolResult;
}

export type ExtensionRegister = (api: ExtensionApi, config: JsonObject) => void | Promise<void>;
