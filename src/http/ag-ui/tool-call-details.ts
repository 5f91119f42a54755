/**
 * The arguments and results of tool calls, read from the conversations the store keeps: a step's assistant message
 * (with its calls) is committed before the calls run, and their results with the turn, so a call's arguments can be
 * read when it starts and its result once the turn that made it has ended. AG-UI's TOOL_CALL_ARGS and
 * TOOL_CALL_RESULT come from here; a conversation that cannot be read gives `{}` and no result.
 */
import type { ApiBackend } from "../api-backend.ts";

interface Part {
  type?: string;
  toolCallId?: string;
  input?: unknown;
  output?: { type?: string; value?: unknown };
}

async function partsOf(options: { backend: ApiBackend; agent: string; instanceKey: string }): Promise<Part[]> {
  const messages = await options.backend.orchestrator.messages(options.agent, options.instanceKey).catch(() => []);
  return messages.flatMap((message) => {
    const content = (message.data as { content?: unknown }).content;
    return Array.isArray(content) ? (content as Part[]) : [];
  });
}

/** The JSON arguments of a call, as its model wrote them (`{}` when not found). */
export async function toolCallArguments(options: {
  backend: ApiBackend;
  agent: string;
  instanceKey: string;
  toolCallId: string;
}): Promise<string> {
  const parts = await partsOf(options);
  const call = parts.find((part) => part.type === "tool-call" && part.toolCallId === options.toolCallId);
  return JSON.stringify(call?.input ?? {});
}

/** The results of the given calls of one instance, as JSON text, by call id (absent: not stored). */
export async function toolCallResults(options: {
  backend: ApiBackend;
  agent: string;
  instanceKey: string;
  toolCallIds: readonly string[];
}): Promise<Map<string, string>> {
  const wanted = new Set(options.toolCallIds);
  const results = new Map<string, string>();
  for (const part of await partsOf(options)) {
    if (part.type !== "tool-result" || part.toolCallId === undefined || !wanted.has(part.toolCallId)) continue;
    results.set(part.toolCallId, JSON.stringify(part.output?.value ?? null));
  }
  return results;
}
