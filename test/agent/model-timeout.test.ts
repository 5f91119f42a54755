import { afterEach, describe, expect, it } from "bun:test";
import type { ModelResource } from "../../src/config/types.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { createLanguageModel } from "../../src/agent/model/model-factory.ts";
import { DEFAULT_MODEL_TIMEOUT_MS, modelTimeoutMs } from "../../src/agent/model/model-call-timeout.ts";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { startLoopbackLlm, type LoopbackLlm } from "../helpers/loopback-llm.ts";
import { testEnv, userEvent } from "./support/test-env.ts";

let server: LoopbackLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function loopbackModel(url: string, options: Record<string, unknown> = {}): ModelResource {
  return {
    apiVersion: "goondan.ai/v1",
    kind: "Model",
    metadata: { name: "loopback" },
    spec: { provider: "openai-compatible", model: "loopback-model", endpoint: url, options: options as JsonObject },
    source: { file: "goondan.yaml", docIndex: 0, baseDir: "." },
  } as ModelResource;
}

async function harnessFor(resource: ModelResource, maxRetries: number): Promise<ReturnType<typeof testEnv>> {
  const harness = testEnv({ model: await createLanguageModel({ resource, apiKey: "sk-loopback" }) });
  harness.env.modelTimeoutMs = modelTimeoutMs(resource);
  harness.env.retryPolicy = { maxRetries };
  return harness;
}

describe("a model call's deadline", () => {
  it("reads Model options.timeoutMs, defaults to 120000 and refuses a value that is not a positive number", () => {
    expect(modelTimeoutMs(loopbackModel("http://127.0.0.1:1/v1", { timeoutMs: 250 }))).toBe(250);
    expect(modelTimeoutMs(loopbackModel("http://127.0.0.1:1/v1"))).toBe(DEFAULT_MODEL_TIMEOUT_MS);
    expect(DEFAULT_MODEL_TIMEOUT_MS).toBe(120_000);
    for (const bad of [0, -5, "200"])
      expect(() => modelTimeoutMs(loopbackModel("http://127.0.0.1:1/v1", { timeoutMs: bad }))).toThrow(
        expect.objectContaining({ code: "E_CONFIG_MODEL_TIMEOUT" }),
      );
  });

  it("retries a call that outlives the timeout as E_MODEL_TIMEOUT and takes the next answer", async () => {
    server = await startLoopbackLlm({ replies: [{ text: "too late", delayMs: 5_000 }, { text: "on time" }] });
    const harness = await harnessFor(loopbackModel(server.url, { timeoutMs: 200 }), 2);
    const { result } = await runTurn({ env: harness.env, event: userEvent("hi") });
    expect(result).toMatchObject({ status: "ok", response: "on time" });
    expect(server.requests).toHaveLength(2);
    expect(harness.events.events.find((event) => event.type === "model.retried")).toMatchObject({
      error: { code: "E_MODEL_TIMEOUT" },
    });
  });

  it("ends the turn with a structured E_MODEL_TIMEOUT failure once the retries are spent", async () => {
    server = await startLoopbackLlm({
      replies: [
        { text: "late", delayMs: 5_000 },
        { text: "late again", delayMs: 5_000 },
      ],
    });
    const harness = await harnessFor(loopbackModel(server.url, { timeoutMs: 150 }), 1);
    const { result } = await runTurn({ env: harness.env, event: userEvent("hi") });
    expect(result).toMatchObject({ status: "error", finishReason: "error", error: { code: "E_MODEL_TIMEOUT" } });
    expect(server.requests).toHaveLength(2);
    expect(harness.events.events.map((event) => event.type)).toContain("turn.failed");
  });

  it("still reports the turn's own abort as an abort, not a timeout", async () => {
    server = await startLoopbackLlm({ replies: [{ text: "late", delayMs: 5_000 }] });
    const harness = await harnessFor(loopbackModel(server.url, { timeoutMs: 2_000 }), 2);
    const shutdown = new AbortController();
    setTimeout(() => shutdown.abort(new Error("shutdown")), 100);
    const ending = await runTurn({ env: harness.env, event: userEvent("hi"), signal: shutdown.signal });
    expect(ending.type).toBe("aborted");
    expect(ending.result).toMatchObject({
      status: "error",
      finishReason: "aborted",
      error: { code: "E_AGENT_TURN_ABORTED" },
    });
    expect(server.requests).toHaveLength(1);
  });
});
