/**
 * Everything a turn needs from its instance, gathered in one object so run-turn/run-step take a single
 * options input: the model and its params, the system prompt, tools (registry + the agent's Tool resources),
 * the pipeline, the conversation store, the runtime-event sink, and the injectables (ids, clock, sleep), each
 * set once where the environment is built (create-agent-instance.ts in production).
 */
import type { LanguageModel } from "ai";
import type { ModelParams, ToolResource } from "../../config/types.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ToolRegistry } from "../../tools/tool-registry.ts";
import type { AgentToolRuntime, RuntimeCallContext } from "../../tools/types.ts";
import type { ConversationStore } from "../conversation/conversation-store.ts";
import type { PendingResults } from "../conversation/pending-results.ts";
import type { ToolCompletions } from "../conversation/tool-completions.ts";
import type { PipelineRegistry } from "../extensions/pipeline-registry.ts";
import type { RetryPolicy } from "../model/call-with-retry.ts";
import type { RuntimeEventSink } from "../instance/runtime-event-log.ts";

export interface TurnEnvironment {
  agentName: string;
  instanceKey: string;
  model: LanguageModel;
  params: ModelParams;
  systemPrompt: string;
  /** Default 32. */
  maxStepsPerTurn: number;
  registry: ToolRegistry;
  agentTools: readonly ToolResource[];
  pipeline: PipelineRegistry;
  store: ConversationStore;
  runtimeEvents: RuntimeEventSink;
  workdir: string;
  logger: Logger;
  /** `ctx.runtime` for one tool call, carrying its trace context and call chain. */
  runtime: (context: RuntimeCallContext) => AgentToolRuntime;
  pendingResults?: PendingResults;
  /** Awaits completions of pending tool calls in the background and stores them in pendingResults. */
  toolCompletions?: ToolCompletions;
  retryPolicy?: Partial<RetryPolicy>;
  /** Deadline of one model call (Model `options.timeoutMs`); default 120000. */
  modelTimeoutMs?: number;
  ids: IdGenerator;
  now: () => number;
  /** Backoff sleep between model retries (a real abortable timer in production). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}
