/**
 * The OpenAI-compatible surface (docs/interop.md): `GET /v1/models` lists `<swarm>` (the entry agent) and
 * `<swarm>/<agent>` for each member; `POST /v1/chat/completions` sends the conversation's last user message to that
 * agent as an event (chat-request.ts) and answers with the turn's reply as a `chat.completion`, or with
 * `stream: true` as `chat.completion.chunk`s of the reply text only (the swarm's tool calls stay inside), ended by
 * `data: [DONE]`. Usage counts every turn of the event's trace. Errors take OpenAI's shape (openai-error.ts); a
 * failed turn is `502` with its code, no answer within the Swarm's `requestTimeoutMs` a `504` with the `eventId`.
 */
import { Hono } from "hono";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { ApiBackend } from "../api-backend.ts";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { awaitOutcome } from "../routes/events.ts";
import { noQuery } from "../routes/no-query.ts";
import { sseResponse } from "../sse-stream.ts";
import {
  type ChatFrame,
  chatChunk,
  chatCompletion,
  finishReasonOf,
  goondanFields,
  openAiUsage,
  usageChunk,
} from "./chat-answer.ts";
import {
  agentOfModel,
  chatInput,
  checkChatRequest,
  CONVERSATION_HEADER,
  conversationOf,
  modelIds,
  type ChatRequest,
} from "./chat-request.ts";
import { openAiErrorBody } from "./openai-error.ts";
import { ReplyText } from "../reply-text.ts";
import { watchUsage } from "../turn-usage.ts";

/** The paths this surface answers on: http-api.ts gives each OpenAI's error shape before any other check runs. */
export const OPENAI_PATHS = ["/v1/chat/completions", "/v1/models"] as const;

/** A turn that ended in error, as OpenAI's `502 server_error` with the turn's code. */
function failedTurn(outcome: TurnOutcome): ApiError {
  return new ApiError({
    status: 502,
    code: outcome.error?.code ?? "E_AGENT_TURN_FAILED",
    message: outcome.error?.message ?? "the agent's turn failed",
    extra: { eventId: outcome.eventId },
  });
}

export function openAiRoutes(options: { backend: ApiBackend; maxBodyBytes: number; heartbeatMs?: number }) {
  const { backend } = options;
  return new Hono<ApiEnv>()
    .get("/v1/models", noQuery("GET /v1/models"), (c) => {
      const created = Math.floor(Date.now() / 1000);
      const owner = backend.orchestrator.swarm.name;
      return c.json({
        object: "list",
        data: modelIds(backend.orchestrator.swarm).map((id) => ({ id, object: "model", created, owned_by: owner })),
      });
    })
    .post(
      "/v1/chat/completions",
      noQuery("POST /v1/chat/completions"),
      jsonBody({ maxBytes: options.maxBodyBytes, check: checkChatRequest }),
      async (c) => {
        const request = c.var.body as ChatRequest;
        const agent = agentOfModel(backend.orchestrator.swarm, request.model);
        const conversation = conversationOf({ header: c.req.header(CONVERSATION_HEADER), user: request.user });
        const input = chatInput({ messages: request.messages, kept: conversation.kept });
        const usage = watchUsage(backend);
        const reply = new ReplyText();
        let relay: ((text: string) => void) | undefined;
        const early: string[] = [];
        let handedOver = false;
        try {
          const submitted = backend.orchestrator.submit({
            input,
            agent,
            instanceKey: conversation.instanceKey,
            metadata: { via: "openai" },
            ...(request.stream === true
              ? {
                  onProgress: (progress) => {
                    if (progress.kind === "restarted") reply.restart();
                    if (progress.kind !== "delta") return;
                    const fresh = reply.add(progress.text);
                    if (fresh !== "") (relay ?? ((text: string) => early.push(text)))(fresh);
                  },
                }
              : {}),
          });
          await submitted.accepted;
          const frame: ChatFrame = {
            id: `chatcmpl-${submitted.eventId}`,
            model: request.model,
            created: Math.floor(Date.now() / 1000),
          };
          const timeoutMs = backend.orchestrator.swarm.policy.requestTimeoutMs;
          c.header(CONVERSATION_HEADER, conversation.instanceKey);
          if (request.stream !== true) {
            c.env.keepOpen();
            const ended = await awaitOutcome(submitted, timeoutMs);
            if (ended instanceof ApiError) throw ended;
            if (ended.status === "error") throw failedTurn(ended);
            return c.json(chatCompletion({ frame, outcome: ended, usage: usage.usageOf(submitted.eventId) }));
          }
          handedOver = true;
          return sseResponse({
            c,
            ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
            run: async (writer) => {
              try {
                writer.send({ data: chatChunk({ frame, delta: { role: "assistant", content: "" } }) });
                relay = (text) => writer.send({ data: chatChunk({ frame, delta: { content: text } }) });
                for (const text of early.splice(0)) relay(text);
                const ended = await awaitOutcome(submitted, timeoutMs);
                if (ended instanceof ApiError || ended.status === "error") {
                  const error = ended instanceof ApiError ? ended : failedTurn(ended);
                  const { status, code, message, extra } = error;
                  writer.send({ data: openAiErrorBody({ status, code, message, extra }) });
                  return;
                }
                const rest = reply.rest(ended.response);
                if (rest !== "") relay(rest);
                const counted = usage.usageOf(submitted.eventId);
                const includeUsage = request.stream_options?.include_usage === true;
                writer.send({
                  data: chatChunk({
                    frame,
                    delta: {},
                    finishReason: finishReasonOf(ended),
                    extra: { goondan: goondanFields(ended), ...(includeUsage ? {} : { usage: openAiUsage(counted) }) },
                  }),
                });
                if (includeUsage) writer.send({ data: usageChunk({ frame, usage: counted }) });
                writer.sendRaw("data: [DONE]\n\n");
              } finally {
                usage.stop();
              }
            },
          });
        } finally {
          if (!handedOver) usage.stop();
        }
      },
    );
}
