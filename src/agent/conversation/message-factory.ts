/** Builds the conversation's Message records (id, ModelMessage data, metadata, source) for users, the model and tools. */
import type { ModelMessage } from "ai";
import type { JsonValue } from "../../shared/json.ts";
import type { Message, ToolResult } from "../../tools/types.ts";

export function createMessage(options: {
  id: string;
  data: ModelMessage;
  source: Message["source"];
  metadata?: Record<string, JsonValue>;
  now: number;
}): Message {
  return {
    id: options.id,
    data: options.data,
    metadata: options.metadata ?? {},
    createdAt: new Date(options.now).toISOString(),
    source: options.source,
  };
}

export function assistantData(
  text: string,
  toolCalls: readonly { id: string; name: string; args: unknown }[],
): ModelMessage {
  const content: (
    | { type: "text"; text: string }
    | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
  )[] = [];
  if (text.length > 0) content.push({ type: "text", text });
  for (const call of toolCalls)
    content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: call.args ?? {} });
  return { role: "assistant", content } as ModelMessage;
}

export function toolResultData(
  outcomes: readonly { toolCallId: string; toolName: string; result: ToolResult }[],
): ModelMessage {
  return {
    role: "tool",
    content: outcomes.map((outcome) => ({
      type: "tool-result",
      toolCallId: outcome.toolCallId,
      toolName: outcome.toolName,
      output: { type: "json", value: outcome.result as unknown as JsonValue },
    })),
  } as ModelMessage;
}

/** Text of a message (its string content or its text parts). */
export function messageText(message: Message): string {
  const content = (message.data as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      typeof part === "object" && part !== null && (part as { type?: string }).type === "text"
        ? String((part as { text?: unknown }).text ?? "")
        : "",
    )
    .join("");
}
