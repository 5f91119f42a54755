/**
 * An OpenAI-compatible chat-completions test server on 127.0.0.1 (Bun.serve, port 0). It answers
 * `POST /v1/chat/completions` from a script — a queue of replies, rules matched on the request, or a function —
 * in JSON or SSE (`stream: true`, incl. tool_call deltas and `[DONE]`), injects failures (HTTP status with
 * Retry-After, delays, malformed bodies) and records every request so tests assert on what the model was shown.
 * A request with nothing scripted for it gets HTTP 400 `loopback_script_exhausted` and is listed in
 * `unexpected` (fail loudly). `GET /__requests` returns the recorded requests, for tests in another process.
 *
 * CLI: `bun test/helpers/loopback-llm.ts --script file.json` prints `{"port","url"}` as one JSON line and serves
 * until SIGTERM/SIGINT. The script file is `LoopbackScriptFile` (or a bare array of replies).
 */
import type {
  LoopbackLlm,
  LoopbackLlmOptions,
  LoopbackReply,
  LoopbackRequest,
  LoopbackRequestBody,
  LoopbackScriptFile,
} from "./loopback-llm-types.ts";
import { matches } from "./loopback-request.ts";
import { failureResponse, jsonResponse, streamResponse, type ShapedReply } from "./loopback-responses.ts";

export type * from "./loopback-llm-types.ts";
export { lastUserText, messageText, systemPrompt, toolNames, toolResults } from "./loopback-request.ts";

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

export async function startLoopbackLlm(options: LoopbackLlmOptions = {}): Promise<LoopbackLlm> {
  const queue = [...(options.replies ?? [])];
  const rules = (options.rules ?? []).map((rule) => ({ ...rule }));
  const requests: LoopbackRequest[] = [];
  const unexpected: LoopbackRequest[] = [];
  const modelId = options.model ?? "loopback";
  let toolCallCounter = 0;
  let responseCounter = 0;

  const pick = async (request: LoopbackRequest): Promise<LoopbackReply | undefined> => {
    const fromFunction = options.respond === undefined ? undefined : await options.respond(request);
    if (fromFunction !== undefined) return fromFunction;
    for (const rule of rules) {
      if ((rule.times === undefined || rule.times > 0) && matches(rule.match, request)) {
        if (rule.times !== undefined) rule.times -= 1;
        return rule.reply;
      }
    }
    return queue.shift() ?? options.fallback;
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    idleTimeout: 0,
    fetch: async (httpRequest) => {
      const url = new URL(httpRequest.url);
      if (httpRequest.method === "GET" && url.pathname === "/__requests")
        return Response.json({ requests, unexpected });
      if (httpRequest.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
        return Response.json(
          { error: { message: `loopback-llm: no route ${httpRequest.method} ${url.pathname}`, type: "not_found" } },
          { status: 404 },
        );
      }
      let body: LoopbackRequestBody;
      try {
        body = (await httpRequest.json()) as LoopbackRequestBody;
      } catch {
        return Response.json(
          { error: { message: "loopback-llm: request body is not JSON", type: "invalid_request_error" } },
          { status: 400 },
        );
      }
      const headers: Record<string, string> = {};
      httpRequest.headers.forEach((value, key) => {
        headers[key.toLowerCase()] = value;
      });
      const request: LoopbackRequest = {
        index: requests.length,
        path: url.pathname,
        body,
        headers,
        stream: body.stream === true,
        receivedAt: Date.now(),
      };
      requests.push(request);
      const reply = await pick(request);
      if (reply === undefined) {
        unexpected.push(request);
        return Response.json(
          {
            error: {
              message: "loopback-llm: script exhausted, nothing scripted for this request",
              type: "invalid_request_error",
              code: "loopback_script_exhausted",
            },
          },
          { status: 400 },
        );
      }
      if (reply.delayMs !== undefined && reply.delayMs > 0) await sleep(reply.delayMs, httpRequest.signal);
      if (reply.fail !== undefined) return failureResponse(reply.fail);
      responseCounter += 1;
      const toolCalls = (reply.toolCalls ?? []).map((call) => {
        toolCallCounter += 1;
        return {
          id: call.id ?? `call_${toolCallCounter}`,
          name: call.name,
          arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {}),
        };
      });
      const shaped: ShapedReply = {
        id: `chatcmpl-loopback-${responseCounter}`,
        model: modelId,
        text: reply.text,
        toolCalls,
        finishReason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
        usage: {
          prompt_tokens: reply.usage?.promptTokens ?? 10,
          completion_tokens: reply.usage?.completionTokens ?? 5,
          total_tokens: (reply.usage?.promptTokens ?? 10) + (reply.usage?.completionTokens ?? 5),
        },
        malformed: reply.malformed === true,
      };
      if (!request.stream) return jsonResponse(shaped);
      return streamResponse(shaped, {
        ...(reply.chunkDelayMs === undefined ? {} : { chunkDelayMs: reply.chunkDelayMs }),
        ...(reply.textPieces === undefined ? {} : { textPieces: reply.textPieces }),
        onFirstByte: () => void (request.firstByteAt = Date.now()),
        onFirstText: () => void (request.firstTextPerf = performance.now()),
        onEnd: () => void (request.finishedAt = Date.now()),
      });
    },
  });

  const port = server.port ?? 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    unexpected,
    push: (...replies) => {
      queue.push(...replies);
    },
    remaining: () => queue.length,
    close: async () => {
      await server.stop(true);
    },
  };
}

export async function readScriptFile(path: string): Promise<LoopbackScriptFile> {
  const parsed = (await Bun.file(path).json()) as LoopbackScriptFile | LoopbackReply[];
  return Array.isArray(parsed) ? { replies: parsed } : parsed;
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const scriptIndex = argv.indexOf("--script");
  const portIndex = argv.indexOf("--port");
  const script: LoopbackScriptFile =
    scriptIndex >= 0 && argv[scriptIndex + 1] !== undefined
      ? await readScriptFile(argv[scriptIndex + 1] as string)
      : {};
  const server = await startLoopbackLlm({ ...script, port: portIndex >= 0 ? Number(argv[portIndex + 1]) : 0 });
  process.stdout.write(`${JSON.stringify({ port: server.port, url: server.url })}\n`);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
