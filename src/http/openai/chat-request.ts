/**
 * What `POST /v1/chat/completions` takes, and how it maps onto an event: the body's schema (OpenAI's fields; the
 * sampling ones are taken and ignored, since each agent's Model decides them; caller-side `tools` and `n > 1` are
 * refused), the agent its `model` names (`<swarm>` is the entry agent, `<swarm>/<agent>` a member), the instance
 * the conversation maps to (the `x-goondan-conversation` header, else `user`, else a fresh instance per call), and
 * the event's input: the last user message for a kept conversation (the instance remembers the rest), or the whole
 * `messages` list written out as the history of a fresh instance's first turn.
 */
import type { SwarmView } from "../../orchestrator/swarm-view.ts";
import type { JsonObject } from "../../shared/json.ts";
import { newId } from "../../shared/ids.ts";
import { ApiError } from "../api-error.ts";
import { INSTANCE_KEY_SCHEMA, MAX_INSTANCE_KEY_LENGTH, requestSchema } from "../request-schema.ts";

/** The request header that keeps a conversation in one instance across calls (its value is the instance key). */
export const CONVERSATION_HEADER = "x-goondan-conversation";

type ContentPart = { type: "text"; text: string };
export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: string | ContentPart[] | null;
  name?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  user?: string;
  n?: number;
}

const IGNORED = ["temperature", "top_p", "max_tokens", "max_completion_tokens", "presence_penalty"]
  .concat(["frequency_penalty", "seed", "stop", "logit_bias", "logprobs", "top_logprobs", "metadata", "store"])
  .concat(["parallel_tool_calls", "reasoning_effort", "service_tier", "response_format", "modalities"]);

export const CHAT_REQUEST_SCHEMA: JsonObject = {
  type: "object",
  required: ["model", "messages"],
  additionalProperties: false,
  properties: {
    model: { type: "string", minLength: 1, maxLength: 600 },
    messages: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["role"],
        properties: {
          role: { enum: ["system", "developer", "user", "assistant", "tool"] },
          content: {
            anyOf: [
              { type: "string" },
              { type: "null" },
              {
                type: "array",
                items: {
                  type: "object",
                  required: ["type"],
                  properties: { type: { type: "string" }, text: { type: "string" } },
                },
              },
            ],
          },
          name: { type: "string" },
        },
      },
    },
    stream: { type: "boolean" },
    stream_options: { type: "object", properties: { include_usage: { type: "boolean" } } },
    user: INSTANCE_KEY_SCHEMA,
    n: { const: 1, description: "one choice: a swarm gives one answer" },
    ...Object.fromEntries(IGNORED.map((name) => [name, {}])),
  },
};

export const checkChatRequest = requestSchema<ChatRequest>({
  route: "POST /v1/chat/completions",
  part: "body",
  schema: CHAT_REQUEST_SCHEMA,
});

/** The agent a `model` names; `404 E_CHAT_MODEL_NOT_FOUND` for anything `GET /v1/models` does not list. */
export function agentOfModel(swarm: SwarmView, model: string): string {
  if (model === swarm.name) return swarm.entryAgent;
  const prefix = `${swarm.name}/`;
  const agent = model.startsWith(prefix) ? model.slice(prefix.length) : undefined;
  if (agent !== undefined && swarm.agents.has(agent)) return agent;
  throw new ApiError({
    status: 404,
    code: "E_CHAT_MODEL_NOT_FOUND",
    message: `The model ${JSON.stringify(model.slice(0, 200))} does not exist; models: ${modelIds(swarm).join(", ")}`,
    suggestion: "GET /v1/models lists them",
  });
}

/** `<swarm>` and `<swarm>/<agent>` for every member, the entry agent's first. */
export function modelIds(swarm: SwarmView): string[] {
  return [swarm.name, ...[...swarm.agents.keys()].map((agent) => `${swarm.name}/${agent}`)];
}

const PRINTABLE = /^[^\p{Cc}\p{Cs}]+$/u;

/** The instance a call's conversation maps to, and whether it is kept across calls. */
export function conversationOf(options: { header: string | undefined; user: string | undefined }): {
  instanceKey: string;
  kept: boolean;
} {
  const { header } = options;
  if (header !== undefined) {
    if (header.length > MAX_INSTANCE_KEY_LENGTH || !PRINTABLE.test(header))
      throw new ApiError({
        status: 400,
        code: "E_CHAT_BAD_CONVERSATION",
        message: `${CONVERSATION_HEADER}: expected 1 to ${MAX_INSTANCE_KEY_LENGTH} printable characters`,
      });
    return { instanceKey: header, kept: true };
  }
  if (options.user !== undefined) return { instanceKey: options.user, kept: true };
  return { instanceKey: newId("chat"), kept: false };
}

export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("");
}

/** The event's input: the last user message; for a fresh instance, preceded by the earlier messages as its history. */
export function chatInput(options: { messages: ChatMessage[]; kept: boolean }): string {
  const { messages } = options;
  const last = messages.at(-1);
  const text = last === undefined ? "" : messageText(last);
  if (last?.role !== "user" || text.trim() === "")
    throw new ApiError({
      status: 400,
      code: "E_CHAT_BAD_MESSAGES",
      message: "messages: expected the last message to be a user message with text",
    });
  const earlier = messages.slice(0, -1);
  if (options.kept || earlier.length === 0) return text;
  const history = earlier.map((message) => `[${message.role}] ${messageText(message)}`).join("\n");
  return `Earlier in this conversation:\n${history}\n\n[user] ${text}`;
}
