/**
 * The message list handed to the model must always be valid: every tool call answered by its result, no tool
 * result without its call. After a crash mid-step the store may hold an assistant message whose tool calls
 * never got (all) their results. Policy (documented in SPEC §3 terms): such an assistant message and its
 * partial results are DROPPED from the view, so the model is asked again from the last consistent point and may
 * re-issue the calls (tools are not re-run behind its back). Orphan tool results are dropped too. (When the
 * process crashed in that step, the calls are answered with E_TOOL_INTERRUPTED first: recover-interrupted-step.ts.)
 */
import type { Message } from "../../tools/types.ts";

function contentParts(message: Message): { type: string; toolCallId?: string; toolName?: string; input?: unknown }[] {
  const content = (message.data as { content?: unknown }).content;
  return Array.isArray(content)
    ? (content as { type: string; toolCallId?: string; toolName?: string; input?: unknown }[])
    : [];
}

/** The tool calls of an assistant message (none for any other message). */
export function toolCallsOf(message: Message): { toolCallId: string; toolName: string; input: unknown }[] {
  if (message.data.role !== "assistant") return [];
  return contentParts(message).flatMap((part) =>
    part.type === "tool-call" && typeof part.toolCallId === "string"
      ? [{ toolCallId: part.toolCallId, toolName: String(part.toolName ?? ""), input: part.input }]
      : [],
  );
}

function toolCallIds(message: Message): string[] {
  return toolCallsOf(message).map((call) => call.toolCallId);
}

function toolResultIds(message: Message): string[] {
  if (message.data.role !== "tool") return [];
  return contentParts(message).flatMap((part) =>
    part.type === "tool-result" && typeof part.toolCallId === "string" ? [part.toolCallId] : [],
  );
}

export interface ModelView {
  messages: Message[];
  /** Ids of messages left out of the view. */
  dropped: string[];
}

export function validModelView(messages: readonly Message[]): ModelView {
  const answered = new Set(messages.flatMap(toolResultIds));
  const dropped: string[] = [];
  const validCalls = new Set<string>();
  const keptAssistants = messages.filter((message) => {
    const calls = toolCallIds(message);
    if (calls.length === 0) return true;
    if (calls.every((id) => answered.has(id))) {
      for (const id of calls) validCalls.add(id);
      return true;
    }
    dropped.push(message.id);
    return false;
  });
  const keptIds = new Set(keptAssistants.map((message) => message.id));
  const result: Message[] = [];
  for (const message of messages) {
    if (message.data.role === "tool") {
      const ids = toolResultIds(message);
      if (ids.length > 0 && ids.every((id) => validCalls.has(id))) {
        result.push(message);
      } else if (ids.some((id) => validCalls.has(id))) {
        const content = contentParts(message).filter(
          (part) => part.type !== "tool-result" || (part.toolCallId !== undefined && validCalls.has(part.toolCallId)),
        );
        result.push({ ...message, data: { ...message.data, content } as Message["data"] });
      } else {
        dropped.push(message.id);
      }
    } else if (keptIds.has(message.id)) {
      result.push(message);
    }
  }
  return { messages: result, dropped };
}
