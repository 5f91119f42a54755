/**
 * A minimal Anthropic Messages API on 127.0.0.1 (Bun.serve, port 0) for tests of the `anthropic` provider:
 * `POST <url>/messages` answers every request with one text reply (non-streaming JSON) and records the
 * request's path, headers and body. Anything else is a 404. The loopback LLM (loopback-llm.ts) speaks only
 * OpenAI chat completions; this is the Anthropic side, kept as small as the tests that use it.
 */
export interface LoopbackAnthropicRequest {
  path: string;
  apiKey: string | null;
  body: { model?: string; system?: unknown; messages?: unknown[] };
}

export interface LoopbackAnthropic {
  /** The base URL the AI SDK expects (`http://127.0.0.1:PORT/v1`). */
  url: string;
  requests: LoopbackAnthropicRequest[];
  close(): Promise<void>;
}

export async function startLoopbackAnthropic(options: { reply: string }): Promise<LoopbackAnthropic> {
  const requests: LoopbackAnthropicRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const url = new URL(request.url);
      if (request.method !== "POST" || !url.pathname.endsWith("/messages"))
        return Response.json(
          { type: "error", error: { type: "not_found_error", message: url.pathname } },
          { status: 404 },
        );
      const body = (await request.json()) as LoopbackAnthropicRequest["body"];
      requests.push({ path: url.pathname, apiKey: request.headers.get("x-api-key"), body });
      return Response.json({
        id: `msg_${requests.length}`,
        type: "message",
        role: "assistant",
        model: body.model ?? "loopback",
        content: [{ type: "text", text: options.reply }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 2 },
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    close: async () => {
      await server.stop(true);
    },
  };
}
