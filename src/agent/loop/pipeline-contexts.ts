/**
 * The three pipelines the loop runs through the one `compose()` onion (`turn`, `step`, `toolCall`): the context
 * each hands its middleware and the result each returns, and `Pipelines`, the middlewares the loop runs them with.
 * The loop owns these shapes; the extensions floor above implements `Pipelines` (extensions/pipeline-registry.ts)
 * and lets extensions register into it.
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { MessageEvent, OlderMessagesQuery } from "../../protocol/conversation.ts";
import type { Middleware } from "../../shared/compose.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { Message, ToolCallMiddlewareContext, ToolCatalogItem, ToolResult } from "../../tools/types.ts";
import type { ConversationState } from "../conversation/conversation-state.ts";
import type { MiddlewareAgentsApi } from "./middleware-agents.ts";
import type { StepResult, TurnResult } from "./turn-result.ts";

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
  /**
   * The instance's stored history, beyond what the process holds: `older({ before, limit })` reads the `limit`
   * (default 50, at most 500) messages just before message `before` (default: the newest) from the store, oldest
   * first, including those removed or truncated with `archive: true`.
   */
  readonly conversation: { older(query?: OlderMessagesQuery): Promise<Message[]> };
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

/** The middlewares of each pipeline, in run order (outermost first), ready for `compose()`. */
export interface Pipelines {
  middlewares<T extends PipelineType>(
    type: T,
  ): Middleware<PipelineContexts[T]["context"], PipelineContexts[T]["result"]>[];
}
