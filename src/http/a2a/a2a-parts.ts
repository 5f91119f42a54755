/**
 * A2A messages as goondan reads and writes them: the text of a message's parts (its `data` parts JSON-encoded), the
 * decision a follow-up message to an `input-required` task gives (a data part `{decision: "approve" | "deny",
 * reason?}`, or the text `approve` / `deny`), and the agent's messages, each one text part.
 */
import { type Message, type Part, Role } from "@a2a-js/sdk";
import { newId } from "../../shared/ids.ts";

export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, mediaType: "text/plain", filename: "", metadata: {} };
}

export function messageText(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((part) => {
      if (part.content?.$case === "text") return part.content.value;
      if (part.content?.$case === "data") return JSON.stringify(part.content.value);
      return "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

export function agentMessage(options: { text: string; taskId: string; contextId: string }): Message {
  return {
    messageId: newId("msg"),
    role: Role.ROLE_AGENT,
    taskId: options.taskId,
    contextId: options.contextId,
    parts: [textPart(options.text)],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The decision a follow-up message gives, or undefined when it says neither approve nor deny. */
export function decisionOf(
  message: Message | undefined,
): { decision: "approve" | "deny"; reason?: string } | undefined {
  for (const part of message?.parts ?? []) {
    if (part.content?.$case !== "data") continue;
    const value = part.content.value as { decision?: unknown; reason?: unknown } | undefined;
    if (value?.decision === "approve" || value?.decision === "deny")
      return {
        decision: value.decision,
        ...(typeof value.reason === "string" && value.reason !== "" ? { reason: value.reason.slice(0, 1000) } : {}),
      };
  }
  const text = messageText(message).trim().toLowerCase();
  if (text === "approve" || text === "approved" || text === "yes") return { decision: "approve" };
  if (text === "deny" || text === "denied" || text === "no") return { decision: "deny" };
  return undefined;
}
