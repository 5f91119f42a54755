import { afterEach, describe, expect, it } from "bun:test";
import { APICallError } from "ai";
import type { ModelResource } from "../../src/config/types.ts";
import { createLanguageModel } from "../../src/agent/model/model-factory.ts";
import { classifyModelError } from "../../src/agent/model/model-failure.ts";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { startLoopbackLlm, type LoopbackLlm } from "../helpers/loopback-llm.ts";
import { testEnv, userEvent } from "./support/test-env.ts";

let server: LoopbackLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function loopbackModel(llm: LoopbackLlm) {
  const resource: ModelResource = {
    apiVersion: "goondan.ai/v1",
    kind: "Model",
    metadata: { name: "loopback" },
    spec: { provider: "openai-compatible", model: "m", endpoint: llm.url },
    source: { file: "/x/goondan.yaml", docIndex: 0, baseDir: "/x" },
  };
  return createLanguageModel({ resource });
}

describe("model errors over real HTTP", () => {
  it("retries HTTP 500 and 429 honouring Retry-After, then answers", async () => {
    server = await startLoopbackLlm({
      replies: [{ fail: { status: 500 } }, { fail: { status: 429, retryAfter: 0 } }, { text: "third time" }],
    });
    const delays: number[] = [];
    const harness = testEnv({ model: await loopbackModel(server) });
    harness.env.sleep = async (ms) => {
      delays.push(ms);
    };
    const { result } = await runTurn({ env: harness.env, event: userEvent("hi") });
    expect(result).toMatchObject({ status: "ok", response: "third time" });
    expect(delays).toEqual([500, 0]);
    expect(server.requests).toHaveLength(3);
  });

  it("ends the turn with E_MODEL_INVALID_RESPONSE on a malformed body, without retrying", async () => {
    server = await startLoopbackLlm({ replies: [{ malformed: true }] });
    const { result } = await runTurn({
      env: testEnv({ model: await loopbackModel(server) }).env,
      event: userEvent("hi"),
    });
    expect(result).toMatchObject({ status: "error", error: { code: "E_MODEL_INVALID_RESPONSE" } });
    expect(server.requests).toHaveLength(1);
  });

  it("reports a refused connection as a network error after retries", async () => {
    server = await startLoopbackLlm({});
    const model = await loopbackModel(server);
    await server.close();
    server = undefined;
    const harness = testEnv({ model });
    const { result } = await runTurn({ env: harness.env, event: userEvent("hi") });
    expect(result.error?.code).toBe("E_MODEL_NETWORK_ERROR");
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    const rateLimited = (headers: Record<string, string>) =>
      new APICallError({
        message: "slow down",
        url: "http://x",
        requestBodyValues: {},
        statusCode: 429,
        responseHeaders: headers,
      });
    expect(classifyModelError(rateLimited({ "Retry-After": "2" }), now)).toMatchObject({
      code: "E_MODEL_RATE_LIMITED",
      retryable: true,
      retryAfterMs: 2000,
    });
    expect(classifyModelError(rateLimited({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now).retryAfterMs).toBe(
      5000,
    );
    expect(classifyModelError(rateLimited({ "retry-after-ms": "250" }), now).retryAfterMs).toBe(250);
    expect(classifyModelError(new Error("plain"), now)).toMatchObject({
      code: "E_MODEL_CALL_FAILED",
      retryable: false,
    });
  });
});
