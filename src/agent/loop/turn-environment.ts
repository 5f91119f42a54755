/**
 * Everything a turn needs from its instance, gathered in one object so run-turn/run-step take a single
 * options input: the model and its params, the system prompt, tools (registry + the agent's Tool resources),
 * the pipeline, the conversation store, the runtime-event sink, and the injectables (ids, clock, sleep), each
 * set once where the environment is built (create-agent-instance.ts in production).
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ModelParams, ToolResource } from "../../config/types.ts";
import type { CommitOptions, InstanceCommit } from "../../protocol/instance-state.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ToolRegistry } from "../../tools/tool-registry.ts";
import type { AgentToolRuntime, RuntimeCallContext } from "../../tools/types.ts";
import type { Conversation } from "../conversation/conversation.ts";
import type { PendingResults } from "../conversation/pending-results.ts";
import type { ToolCompletions } from "../conversation/tool-completions.ts";
import type { RetryPolicy } from "../model/call-with-retry.ts";
import type { StepStream } from "../model/generate-step.ts";
import type { ModelGate } from "../model/model-gate.ts";
import type { ModelPrompt } from "../model/model-prompt.ts";
import type { Pipelines } from "./pipeline-contexts.ts";
import type { RuntimeEventSink } from "./runtime-event-sink.ts";
import type { ToolApprovals } from "./tool-approvals.ts";

export interface TurnEnvironment {
  agentName: string;
  instanceKey: string;
  model: LanguageModelV3;
  /** Calls go over the provider's stream (Model `options.stream`), and their text is handed to `stream` as it comes. */
  streaming: boolean;
  /** The conversation converted for the model, kept up step by step. */
  prompt: ModelPrompt;
  /** Where streamed text of this instance's model calls goes (absent: nowhere). */
  stream?: StepStream;
  params: ModelParams;
  systemPrompt: string;
  /** Default 32. */
  maxStepsPerTurn: number;
  registry: ToolRegistry;
  agentTools: readonly ToolResource[];
  /** The turn, step and toolCall middlewares (extensions/pipeline-registry.ts in production). */
  pipeline: Pipelines;
  /** The conversation in memory; its changes go to the store with each commit. */
  conversation: Conversation;
  /** Makes part of a turn durable before the turn goes on (a step's tool calls before they run). */
  commit: (commit: InstanceCommit, options?: CommitOptions) => Promise<void>;
  runtimeEvents: RuntimeEventSink;
  /** The instance's workspace directory, made when first read (a getter): read it only when a tool asks. */
  readonly workdir: string;
  logger: Logger;
  /** `ctx.runtime` for one tool call, carrying its trace context and call chain. */
  runtime: (context: RuntimeCallContext) => AgentToolRuntime;
  pendingResults: PendingResults;
  /** Tool calls held for a person's decision (the `tool-approval` extension), and the decisions of a resumed turn. */
  approvals?: ToolApprovals;
  /** Awaits completions of pending tool calls in the background and stores them in pendingResults. */
  toolCompletions?: ToolCompletions;
  retryPolicy?: Partial<RetryPolicy>;
  /** Asked before each model call when limits apply (budgets, provider pacing); absent: no limits, no round trip. */
  modelGate?: ModelGate;
  /** Agent `spec.limits.turnSeconds` in ms: past it, the turn makes no further model call (`E_LIMIT_TURN_TIME`). */
  turnTimeLimitMs?: number;
  /** Deadline of one model call (Model `options.timeoutMs`); default 120000. */
  modelTimeoutMs?: number;
  ids: IdGenerator;
  now: () => number;
  /** Backoff sleep between model retries (a real abortable timer in production). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}
