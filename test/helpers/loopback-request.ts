/**
 * Readers of a recorded loopback LLM request (system prompt, tool names and results, last user text) and
 * the rule matcher the server picks scripted replies with.
 */
import type { LoopbackMatch, LoopbackMessage, LoopbackRequest } from "./loopback-llm-types.ts";

/** Text of a message's content (string or array of text parts). */
export function messageText(message: LoopbackMessage | undefined): string {
  if (message === undefined) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
      )
      .join("");
  }
  return "";
}

/** All system messages joined with a blank line. */
export function systemPrompt(request: LoopbackRequest): string {
  return request.body.messages
    .filter((message) => message.role === "system")
    .map(messageText)
    .join("\n\n");
}

export function toolNames(request: LoopbackRequest): string[] {
  return (request.body.tools ?? []).map((tool) => tool.function.name);
}

/** Tool-result messages of the request, contents JSON-parsed when possible. */
export function toolResults(request: LoopbackRequest): { toolCallId: string; content: unknown }[] {
  return request.body.messages
    .filter((message) => message.role === "tool")
    .map((message) => {
      const text = messageText(message);
      let content: unknown = text;
      try {
        content = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      return { toolCallId: message.tool_call_id ?? "", content };
    });
}

export function lastUserText(request: LoopbackRequest): string {
  const users = request.body.messages.filter((message) => message.role === "user");
  return messageText(users[users.length - 1]);
}

export function matches(match: LoopbackMatch, request: LoopbackRequest): boolean {
  const messages = request.body.messages;
  if (match.system !== undefined && !systemPrompt(request).includes(match.system)) return false;
  if (match.lastUser !== undefined && !lastUserText(request).includes(match.lastUser)) return false;
  if (match.lastRole !== undefined && messages[messages.length - 1]?.role !== match.lastRole) return false;
  if (match.hasTool !== undefined && !toolNames(request).includes(match.hasTool)) return false;
  return true;
}
