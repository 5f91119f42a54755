/**
 * The public surface of the `goondan` package for tool and extension authors:
 * `import type { ToolHandler, ToolContext, ToolResult, JsonValue } from "goondan"` in a bundle's tool file,
 * plus the few runtime helpers a tool needs (`pending`, `ToolFault`, `buildToolName`, `parseToolName`); and for
 * applications, `startSwarm` (a swarm run from this process, embed/) and the typed client (`goondan/client`).
 */
export type { JsonArray, JsonObject, JsonPrimitive, JsonValue } from "./shared/json.ts";
export type { Logger } from "./shared/logger.ts";
export type {
  AgentInstanceInfo,
  AgentReply,
  AgentRequestOptions,
  AgentToolRuntime,
  Message,
  PendingHandle,
  ToolCall,
  ToolCallMiddlewareContext,
  ToolCatalogItem,
  ToolContext,
  ToolError,
  ToolHandler,
  ToolRegisterOptions,
  ToolResult,
  ToolSource,
} from "./tools/types.ts";

export type { PendingOptions } from "./tools/pending.ts";
export { buildToolName, isPendingHandle, parseToolName, pending, ToolFault } from "./tools/public-values.ts";

// Extension authors: `export function register(api: ExtensionApi, config: JsonObject)` (agent process).
export type { ExtensionApi, ExtensionRegister, MessageEvent, PipelineMiddleware } from "./agent/extensions/types.ts";
export type { PipelineType, StepMiddlewareContext, TurnMiddlewareContext } from "./agent/loop/pipeline-contexts.ts";
export type { StepResult, StepToolOutcome, TurnResult } from "./agent/loop/turn-result.ts";
export type { TokenUsage } from "./agent/model/token-usage.ts";
export type { ConversationState } from "./agent/conversation/conversation-state.ts";
export type { OlderMessagesQuery } from "./protocol/conversation.ts";

// Connector authors: the context a connector's start function receives and the events it emits.
export type {
  ConnectorContext,
  ConnectorEvent,
  ConnectorEventMessage,
  ConnectorLogger,
  ConnectorReply,
} from "./connector/connector-types.ts";

// Applications: run a swarm from this process and talk to it through the typed client (also `goondan/client`).
export { startSwarm } from "./embed/start-swarm.ts";
export type { RunningSwarm, StartSwarmOptions } from "./embed/start-swarm.ts";
export { createClient, GoondanApiError, GoondanConnectionError } from "./client/index.ts";
export type { GoondanClient, StreamEvent, WatchEvent } from "./client/index.ts";
