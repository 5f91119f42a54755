/**
 * How the loopback LLM answers in the OpenAI chat-completions format: a scripted HTTP failure, a JSON
 * completion, or an SSE stream (text and tool-call argument deltas, usage, `[DONE]`), optionally malformed.
 */
import type { LoopbackFailure } from "./loopback-llm-types.ts";

export interface ShapedReply {
  id: string;
  model: string;
  text: string | undefined;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  malformed: boolean;
}

export function failureResponse(failure: LoopbackFailure): Response {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (failure.retryAfter !== undefined) headers["retry-after"] = String(failure.retryAfter);
  const body =
    failure.body ??
    JSON.stringify({
      error: {
        message: `loopback-llm: scripted HTTP ${failure.status}`,
        type: "scripted_failure",
        code: String(failure.status),
      },
    });
  return new Response(body, { status: failure.status, headers });
}

export function jsonResponse(reply: ShapedReply): Response {
  if (reply.malformed)
    return new Response('{"id": "broken", "choices": [', {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  const message: Record<string, unknown> = { role: "assistant", content: reply.text ?? null };
  if (reply.toolCalls.length > 0) {
    message.tool_calls = reply.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return Response.json({
    id: reply.id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: reply.model,
    choices: [{ index: 0, message, finish_reason: reply.finishReason }],
    usage: reply.usage,
  });
}

/** Splits a string into at most `parts` pieces so clients see real deltas. */
function pieces(text: string, parts: number): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const result: string[] = [];
  for (let start = 0; start < text.length; start += size) result.push(text.slice(start, start + size));
  return result;
}

/** How a streamed answer is paced, and who hears when its first chunk and its end were written. */
export interface StreamPace {
  chunkDelayMs?: number;
  textPieces?: number;
  onFirstByte?: () => void;
  /** The first chunk with text was written (before it, only the role chunk). */
  onFirstText?: () => void;
  onEnd?: () => void;
}

export function streamResponse(reply: ShapedReply, pace: StreamPace = {}): Response {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (
    delta: Record<string, unknown>,
    finishReason: string | null = null,
    extra: Record<string, unknown> = {},
  ): string =>
    `data: ${JSON.stringify({ id: reply.id, object: "chat.completion.chunk", created, model: reply.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
  const events: string[] = [chunk({ role: "assistant", content: "" })];
  if (reply.malformed) {
    events.push('data: {"id": "broken", "choices": [\n\n');
  } else {
    for (const piece of pieces(reply.text ?? "", pace.textPieces ?? 3)) events.push(chunk({ content: piece }));
    reply.toolCalls.forEach((call, index) => {
      events.push(
        chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
      );
      for (const piece of pieces(call.arguments, 2))
        events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    events.push(chunk({}, reply.finishReason, { usage: reply.usage }));
  }
  events.push("data: [DONE]\n\n");
  const encoder = new TextEncoder();
  const delay = pace.chunkDelayMs ?? 0;
  /** Index of the first text chunk (after the role chunk), or 0 when the answer has no text. */
  const firstText = !reply.malformed && (reply.text ?? "") !== "" ? 1 : 0;
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (delay > 0) return;
      pace.onFirstByte?.();
      if (firstText > 0) pace.onFirstText?.();
      for (const event of events) controller.enqueue(encoder.encode(event));
      controller.close();
      pace.onEnd?.();
    },
    async pull(controller) {
      if (delay <= 0) return;
      if (next > 0) await Bun.sleep(delay);
      if (next === 0) pace.onFirstByte?.();
      controller.enqueue(encoder.encode(events[next] as string));
      if (next === firstText) pace.onFirstText?.();
      next += 1;
      if (next < events.length) return;
      controller.close();
      pace.onEnd?.();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}
