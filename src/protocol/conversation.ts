/**
 * An instance's conversation as it crosses the process boundary: its Message records, the MessageEvents that change
 * them (`append | replace | remove | truncate`, the only way a conversation changes), the results waiting to be shown
 * to the model (replies to async requests, completions of pending tool calls), and the ToolResult shape they carry.
 * The agent child keeps these in memory; the orchestrator's store keeps them durably.
 */
import type { ModelMessage } from "ai";
import type { JsonValue } from "../shared/json.ts";
import type { Reply } from "./turn-outcome.ts";

/** One message of a conversation (SPEC §2: a tool's ctx.message is the assistant message holding its call). */
export interface Message {
  readonly id: string;
  readonly data: ModelMessage;
  metadata: Record<string, JsonValue>;
  readonly createdAt: string;
  readonly source: { type: "user" | "assistant" | "tool" | "system" | "extension"; name?: string };
}

/**
 * `archive: true` on a remove or truncate: the message leaves the conversation (the model no longer sees it and the
 * agent child no longer holds it) but stays in the instance's stored history, read back page by page with
 * `ctx.conversation.older()`. Without it the message is deleted.
 */
export type MessageEvent =
  | { type: "append"; message: Message }
  | { type: "replace"; targetId: string; message: Message }
  | { type: "remove"; targetId: string; archive?: boolean }
  | { type: "truncate"; archive?: boolean };

/** A page of an instance's stored history: `limit` messages (default 50, at most 500) just before `before` (a message id; default: the newest). */
export interface OlderMessagesQuery {
  before?: string;
  limit?: number;
}

/** Default and largest page of `OlderMessagesQuery`. */
export const OLDER_MESSAGES_DEFAULT_LIMIT = 50;
export const OLDER_MESSAGES_MAX_LIMIT = 500;

/** The page size a query asks for, brought within 1..OLDER_MESSAGES_MAX_LIMIT. */
export const olderMessagesLimit = (query: OlderMessagesQuery): number =>
  Math.min(OLDER_MESSAGES_MAX_LIMIT, Math.max(1, Math.floor(query.limit ?? OLDER_MESSAGES_DEFAULT_LIMIT)));

export interface ToolError {
  code: string;
  name: string;
  message: string;
  suggestion?: string;
  helpUrl?: string;
}

export type ToolResult =
  | { status: "ok"; output: JsonValue }
  | { status: "pending"; handle: string; output?: JsonValue }
  | { status: "error"; error: ToolError };

/** The settled outcome of a pending tool call, as the model will read it. */
export interface ToolCompletion {
  kind: "tool_completion";
  /** Unique per completion; the id the conversation message carries (metadata.toolCompletionId). */
  id: string;
  handle: string;
  toolName: string;
  toolCallId: string;
  result: ToolResult;
}

/** A result that arrived for an instance and waits to be shown to its model before a step. */
export type PendingResult = Reply | ToolCompletion;

export function isToolCompletion(item: PendingResult): item is ToolCompletion {
  return (item as { kind?: unknown }).kind === "tool_completion";
}

/** A pending result's id: a reply's correlationId, a tool completion's id. */
export function pendingResultId(item: PendingResult): string {
  return isToolCompletion(item) ? item.id : item.correlationId;
}
