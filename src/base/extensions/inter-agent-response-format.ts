/**
 * Built-in extension `inter-agent-response-format`: before each step, rewrites the messages that show the
 * model an async reply of another agent (those carrying `__goondanInterAgentResponse` metadata) into upstream
 * Goondan's shape: one header line `[inter-agent response] <from> -> <to> status=<ok|error|timeout>
 * requestId=<id>`, then the reply's text, or `error(<code>): <message>`. Each message is rewritten once
 * (durably, as a `replace` event) and keeps its metadata, marked `__goondanInterAgentResponseFormatted`.
 */
import type { ExtensionApi, JsonObject, Message } from "../../index.ts";
import { upstreamCode } from "../../protocol/upstream-codes.ts";

export const INTER_AGENT_RESPONSE_KEY = "__goondanInterAgentResponse";
export const FORMATTED_KEY = "__goondanInterAgentResponseFormatted";

interface ReplyFacts {
  requestId: string;
  fromAgentId: string;
  toAgentId: string;
  status: string;
  errorCode?: string;
  errorMessage?: string;
  requestMetadata?: unknown;
}

function factsOf(message: Message): ReplyFacts | undefined {
  if (message.data.role !== "user" || message.metadata[FORMATTED_KEY] === true) return undefined;
  const value = message.metadata[INTER_AGENT_RESPONSE_KEY];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const facts = value as Record<string, unknown>;
  if (
    facts.kind !== "inter_agent_response" ||
    typeof facts.requestId !== "string" ||
    typeof facts.fromAgentId !== "string" ||
    typeof facts.toAgentId !== "string" ||
    typeof facts.status !== "string"
  )
    return undefined;
  return {
    requestId: facts.requestId,
    fromAgentId: facts.fromAgentId,
    toAgentId: facts.toAgentId,
    status: facts.status,
    ...(typeof facts.errorCode === "string" ? { errorCode: facts.errorCode } : {}),
    ...(typeof facts.errorMessage === "string" ? { errorMessage: facts.errorMessage } : {}),
    ...(facts.requestMetadata === undefined ? {} : { requestMetadata: facts.requestMetadata }),
  };
}

/** The reply's own text: the message's text after the runtime's one-line header. */
function replyText(message: Message): string {
  const content = (message.data as { content?: unknown }).content;
  const text = typeof content === "string" ? content : "";
  const newline = text.indexOf("\n");
  return newline < 0 ? "" : text.slice(newline + 1);
}

export function formatReply(message: Message, facts: ReplyFacts, options: { includeRequestMetadata: boolean }): string {
  const lines = [
    `[inter-agent response] ${facts.fromAgentId} -> ${facts.toAgentId} status=${facts.status} requestId=${facts.requestId}`,
  ];
  if (facts.status === "ok") {
    const text = replyText(message);
    if (text !== "") lines.push(text);
  } else {
    lines.push(
      `error(${facts.errorCode ?? upstreamCode("E_AGENT_REQUEST_FAILED")}): ${facts.errorMessage ?? "agent request failed"}`,
    );
  }
  if (options.includeRequestMetadata && facts.requestMetadata !== undefined)
    lines.push(`requestMetadata=${JSON.stringify(facts.requestMetadata)}`);
  return lines.join("\n");
}

export function register(api: ExtensionApi, config: JsonObject): void {
  const includeRequestMetadata = config.includeRequestMetadata === true;
  api.pipeline.register("step", async (ctx) => {
    for (const message of ctx.messages) {
      const facts = factsOf(message);
      if (facts === undefined) continue;
      ctx.emitMessageEvent({
        type: "replace",
        targetId: message.id,
        message: {
          ...message,
          data: { role: "user", content: formatReply(message, facts, { includeRequestMetadata }) },
          metadata: { ...message.metadata, [FORMATTED_KEY]: true },
        },
      });
    }
    return ctx.next();
  });
}
