import { afterEach, describe, expect, it } from "bun:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, streamText, tool } from "ai";
import { startLoopbackLlm, systemPrompt, toolNames, toolResults, type LoopbackLlm } from "../helpers/loopback-llm.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

let server: LoopbackLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const modelFor = (llm: LoopbackLlm) =>
  createOpenAICompatible({ name: "loopback", baseURL: llm.url, apiKey: "test-key" }).chatModel("loopback");
const echoTool = tool({
  description: "echo",
  inputSchema: jsonSchema<{ text: string }>({
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
  }),
});

describe("loopback LLM server", () => {
  it("answers JSON completions with scripted text and records the request", async () => {
    server = await startLoopbackLlm({ replies: [{ text: "hello there" }] });
    const result = await generateText({
      model: modelFor(server),
      system: "You are terse.",
      prompt: "hi",
      tools: { echo: echoTool },
    });
    expect(result.text).toBe("hello there");
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(systemPrompt(request)).toBe("You are terse.");
    expect(toolNames(request)).toEqual(["echo"]);
    expect(request.headers.authorization).toBe("Bearer test-key");
  });

  it("answers tool calls and shows the tool results on the next request", async () => {
    server = await startLoopbackLlm({
      replies: [{ toolCalls: [{ id: "c1", name: "echo", args: { text: "x" } }] }, { text: "done" }],
    });
    const first = await generateText({ model: modelFor(server), prompt: "go", tools: { echo: echoTool } });
    expect(first.toolCalls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual([
      ["c1", "echo", { text: "x" }],
    ]);
    const second = await generateText({
      model: modelFor(server),
      messages: [
        { role: "user", content: "go" },
        ...first.response.messages,
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c1",
              toolName: "echo",
              output: { type: "json", value: { status: "ok", output: "x" } },
            },
          ],
        },
      ],
      tools: { echo: echoTool },
    });
    expect(second.text).toBe("done");
    expect(toolResults(server.requests[1]!)).toEqual([{ toolCallId: "c1", content: { status: "ok", output: "x" } }]);
  });

  it("streams text and tool-call deltas over SSE", async () => {
    server = await startLoopbackLlm({
      replies: [{ text: "streamed reply", toolCalls: [{ name: "echo", args: { text: "abc" } }] }],
    });
    const result = streamText({ model: modelFor(server), prompt: "go", tools: { echo: echoTool } });
    expect(await result.text).toBe("streamed reply");
    const calls = await result.toolCalls;
    expect(calls.map((call) => [call.toolName, call.input])).toEqual([["echo", { text: "abc" }]]);
    expect(server.requests[0]!.stream).toBe(true);
    expect((await result.usage).inputTokens).toBe(10);
  });

  it("injects HTTP 429 with Retry-After, which the SDK retries", async () => {
    server = await startLoopbackLlm({ replies: [{ fail: { status: 429, retryAfter: 0 } }, { text: "after retry" }] });
    const result = await generateText({ model: modelFor(server), prompt: "go", maxRetries: 2 });
    expect(result.text).toBe("after retry");
    expect(server.requests).toHaveLength(2);
  });

  it("fails loudly on a request nothing was scripted for", async () => {
    server = await startLoopbackLlm({ replies: [] });
    await expect(generateText({ model: modelFor(server), prompt: "go", maxRetries: 0 })).rejects.toThrow();
    expect(server.unexpected).toHaveLength(1);
  });

  it("answers rules matched on the request before the queue", async () => {
    server = await startLoopbackLlm({
      rules: [{ match: { system: "agent-b" }, reply: { text: "from rule" } }],
      replies: [{ text: "from queue" }],
    });
    expect((await generateText({ model: modelFor(server), system: "agent-b", prompt: "x" })).text).toBe("from rule");
    expect((await generateText({ model: modelFor(server), system: "agent-a", prompt: "x" })).text).toBe("from queue");
  });

  it("serves a malformed body that the SDK rejects", async () => {
    server = await startLoopbackLlm({ replies: [{ malformed: true }] });
    await expect(generateText({ model: modelFor(server), prompt: "go", maxRetries: 0 })).rejects.toThrow();
  });

  it("runs as a separate process printing its port", async () => {
    const scriptPath = `${process.env.TMPDIR ?? "/tmp"}/loopback-script-${process.pid}.json`;
    await Bun.write(scriptPath, JSON.stringify({ fallback: { text: "cli reply" } }));
    const child = Bun.spawn(
      [process.execPath, new URL("../helpers/loopback-llm.ts", import.meta.url).pathname, "--script", scriptPath],
      { stdout: "pipe" },
    );
    try {
      const reader = child.stdout.getReader();
      const { value } = await reader.read();
      const { url } = JSON.parse(new TextDecoder().decode(value)) as { url: string };
      const model = createOpenAICompatible({ name: "loopback", baseURL: url }).chatModel("m");
      expect((await generateText({ model, prompt: "hi" })).text).toBe("cli reply");
      const recorded = (await (await fetch(url.replace(/\/v1$/, "/__requests"))).json()) as { requests: unknown[] };
      expect(recorded.requests).toHaveLength(1);
    } finally {
      child.kill();
      await child.exited;
    }
  });
});
