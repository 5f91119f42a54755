import { afterEach, describe, expect, it } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateText, jsonSchema, tool } from "ai";
import type { ModelResource, ModelSpec } from "../../src/config/types.ts";
import { createLanguageModel, modelStreams } from "../../src/agent/model/model-factory.ts";
import { generateStep } from "../../src/agent/model/generate-step.ts";
import { ReplayModel } from "../../src/agent/model/replay-model.ts";
import { wrapWithRecorder } from "../../src/agent/model/recording-model.ts";
import { normalizeForMatch } from "../../src/agent/model/cassette.ts";
import { startLoopbackLlm, systemPrompt, type LoopbackLlm } from "../helpers/loopback-llm.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { tempStateRoot } from "./support/test-env.ts";

const modelResource = (spec: Partial<ModelSpec>, baseDir = "/nonexistent"): ModelResource => ({
  apiVersion: "goondan.ai/v1",
  kind: "Model",
  metadata: { name: "test-model" },
  spec: { provider: "openai-compatible", model: "m", ...spec },
  source: { file: join(baseDir, "goondan.yaml"), docIndex: 0, baseDir },
});

let server: LoopbackLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("createLanguageModel", () => {
  it("points openai-compatible at spec.endpoint with the resolved api key", async () => {
    server = await startLoopbackLlm({ replies: [{ text: "via json" }] });
    const model = await createLanguageModel({ resource: modelResource({ endpoint: server.url }), apiKey: "sk-test" });
    expect((await generateText({ model, system: "S", prompt: "hi" })).text).toBe("via json");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
    expect(server.requests[0]?.stream).toBe(false);
  });

  it("goes over SSE when options.stream is true, handing the text over as it arrives", async () => {
    server = await startLoopbackLlm({ replies: [{ text: "via sse", toolCalls: [{ name: "t__x", args: { a: 1 } }] }] });
    const resource = modelResource({ endpoint: server.url, options: { stream: true } });
    expect(modelStreams(resource)).toBe(true);
    expect(modelStreams(modelResource({ endpoint: server.url }))).toBe(false);
    const model = await createLanguageModel({ resource });
    const deltas: string[] = [];
    const result = await generateStep({
      model,
      streaming: modelStreams(resource),
      params: {},
      prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      catalog: [
        { name: "t__x", description: "x", parameters: { type: "object", properties: { a: { type: "number" } } } },
      ],
      signal: new AbortController().signal,
      sleep: async () => {},
      now: Date.now,
      onRetry: () => {},
      stream: { delta: (text) => void deltas.push(text), restarted: () => {} },
    });
    expect(result).toMatchObject({ text: "via sse", toolCalls: [{ name: "t__x", args: { a: 1 } }], streamed: true });
    expect(deltas.join("")).toBe("via sse");
    expect(result.timeToFirstTokenMs).toBeGreaterThanOrEqual(0);
    expect(server.requests[0]?.stream).toBe(true);
  });

  it("makes one HTTP model per settings in a process, shared by the instances that ask, and a replay model each time", async () => {
    const resource = modelResource({ endpoint: "http://127.0.0.1:9/v1" });
    const first = await createLanguageModel({ resource, apiKey: "sk-a" });
    expect(await createLanguageModel({ resource, apiKey: "sk-a" })).toBe(first);
    expect(await createLanguageModel({ resource, apiKey: "sk-b" })).not.toBe(first);
    expect(
      await createLanguageModel({ resource: modelResource({ endpoint: "http://127.0.0.1:8/v1" }), apiKey: "sk-a" }),
    ).not.toBe(first);
    const root = tempStateRoot();
    writeFileSync(join(root, "c.jsonl"), "");
    const replay = modelResource({ provider: "replay", options: { cassette: "c.jsonl" } }, root);
    expect(await createLanguageModel({ resource: replay })).not.toBe(await createLanguageModel({ resource: replay }));
  });

  it("is a config error when openai-compatible has no endpoint", async () => {
    await expect(createLanguageModel({ resource: modelResource({}) })).rejects.toMatchObject({
      code: "E_CONFIG_MODEL_ENDPOINT_MISSING",
    });
  });

  it("is a config error when the replay cassette does not exist", async () => {
    await expect(
      createLanguageModel({
        resource: modelResource({ provider: "replay", options: { cassette: "missing.jsonl" } }, tempStateRoot()),
      }),
    ).rejects.toMatchObject({ code: "E_CONFIG_CASSETTE_NOT_FOUND" });
  });
});

describe("record then replay", () => {
  it("replays a recorded conversation without the original model", async () => {
    const dir = tempStateRoot();
    const cassette = join(dir, "cassette.jsonl");
    const scripted = scriptedModel([{ toolCalls: [{ name: "fs__list", args: { path: "." } }] }, { text: "two files" }]);
    const recorder = wrapWithRecorder(scripted.model, cassette);
    const tools = {
      fs__list: tool({ inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }) }),
    };
    const first = await generateText({ model: recorder, system: "SYS", prompt: "list files", tools });
    const call = first.toolCalls[0]!;
    const followUp = [
      { role: "user" as const, content: "list files" },
      ...first.response.messages,
      {
        role: "tool" as const,
        content: [
          {
            type: "tool-result" as const,
            toolCallId: call.toolCallId,
            toolName: "fs__list",
            output: { type: "json" as const, value: { status: "ok", output: ["/tmp/x/a", "/tmp/x/b"] } },
          },
        ],
      },
    ];
    await generateText({ model: recorder, system: "SYS", messages: followUp, tools });
    scripted.assertDone();

    const replay = await createLanguageModel({
      resource: modelResource({ provider: "replay", options: { cassette: "cassette.jsonl" } }, dir),
    });
    const replayed = await generateText({ model: replay, system: "SYS", prompt: "list files", tools });
    expect(replayed.toolCalls.map((item) => [item.toolName, item.input])).toEqual([["fs__list", { path: "." }]]);
    const replayedFollowUp = followUp.map((message) =>
      message.role === "tool"
        ? {
            ...message,
            content: [
              {
                ...message.content[0]!,
                output: { type: "json" as const, value: { status: "ok", output: ["/other/dir/a"] } },
              },
            ],
          }
        : message,
    );
    expect((await generateText({ model: replay, system: "SYS", messages: replayedFollowUp, tools })).text).toBe(
      "two files",
    );
  });

  it("tolerates ids, timestamps and absolute paths in the input", () => {
    expect(normalizeForMatch("at 2026-11-21T07:52:14.123Z in /home/me/.goondan/workspaces/x id evt_abc12345xyz")).toBe(
      normalizeForMatch("at 2025-01-01T00:00:00Z in /var/state/workspaces/y id evt_zzz99999qqq"),
    );
  });

  it("fails with E_MODEL_REPLAY_MISMATCH naming the line and what differed", async () => {
    const dir = tempStateRoot();
    const cassette = join(dir, "c.jsonl");
    const recorder = wrapWithRecorder(scriptedModel([{ text: "hello" }]).model, cassette);
    await generateText({ model: recorder, system: "SYS", prompt: "hi" });
    const replay = new ReplayModel({ cassette });
    const failure = generateText({ model: replay, system: "SYS", prompt: "something else", maxRetries: 0 });
    await expect(failure).rejects.toMatchObject({ code: "E_MODEL_REPLAY_MISMATCH" });
    await expect(
      generateText({ model: replay, system: "SYS", prompt: "something else", maxRetries: 0 }),
    ).rejects.toThrow(/line 1.*last message/);
  });

  it("fails with E_MODEL_REPLAY_EXHAUSTED on an empty cassette", async () => {
    const cassette = join(tempStateRoot(), "empty.jsonl");
    writeFileSync(cassette, "");
    await expect(
      generateText({ model: new ReplayModel({ cassette }), prompt: "hi", maxRetries: 0 }),
    ).rejects.toMatchObject({ code: "E_MODEL_REPLAY_EXHAUSTED" });
  });

  it("answers agents sharing one cassette by their system prompt", async () => {
    const cassette = join(tempStateRoot(), "shared.jsonl");
    const recorder = wrapWithRecorder(scriptedModel([{ text: "from A" }, { text: "from B" }]).model, cassette);
    await generateText({ model: recorder, system: "agent A", prompt: "hi" });
    await generateText({ model: recorder, system: "agent B", prompt: "hi" });
    const replay = new ReplayModel({ cassette });
    expect((await generateText({ model: replay, system: "agent B", prompt: "hi" })).text).toBe("from B");
    expect((await generateText({ model: replay, system: "agent A", prompt: "hi" })).text).toBe("from A");
  });
});

describe("loopback request recording", () => {
  it("shows the system prompt the provider sent", async () => {
    server = await startLoopbackLlm({ replies: [{ text: "ok" }] });
    const model = await createLanguageModel({ resource: modelResource({ endpoint: server.url }) });
    await generateText({ model, system: "You are X.", prompt: "hi" });
    expect(systemPrompt(server.requests[0]!)).toBe("You are X.");
  });
});

describe("resolveApiKey", () => {
  it("resolves every ValueSource form exactly like the config plane", async () => {
    const { resolveApiKey } = await import("../../src/agent/model/api-key.ts");
    const { resolveValueSource } = await import("../../src/config/value-source.ts");
    const env = { OPENAI_KEY: "from-env", GOONDAN_SECRET_LLM_KEYS_OPENAI: "from-secret", EMPTY: "" };
    const sources = [
      { value: "literal" },
      { valueFrom: { env: "OPENAI_KEY" } },
      { valueFrom: { env: "EMPTY" } },
      { valueFrom: { env: "UNSET" } },
      { valueFrom: { secretRef: { ref: "Secret/llm-keys", key: "openai" } } },
    ];
    for (const source of sources) expect(resolveApiKey(source, env)).toBe(resolveValueSource(source, env));
    expect(resolveApiKey(sources[4]!, env)).toBe("from-secret");
  });
});

describe("hand-written cassettes", () => {
  it("match readable text, and a missing field matches anything", async () => {
    const cassette = join(tempStateRoot(), "hand.jsonl");
    writeFileSync(
      cassette,
      [
        JSON.stringify({
          v: 1,
          request: { lastRole: "user", lastText: "hello  there" },
          reply: { content: [{ type: "text", text: "Hi!" }], finishReason: "stop" },
        }),
        JSON.stringify({
          v: 1,
          request: { systemText: "You are B." },
          reply: { content: [{ type: "text", text: "B speaking" }] },
        }),
      ].join("\n"),
    );
    const replay = new ReplayModel({ cassette });
    expect((await generateText({ model: replay, system: "anything", prompt: "hello there" })).text).toBe("Hi!");
    expect((await generateText({ model: replay, system: "You are B.", prompt: "whatever" })).text).toBe("B speaking");
  });
});
