/**
 * The provider variables' precedence over real HTTP: a Model's own endpoint and apiKey win, the provider's
 * standard variables come next, and the orchestrator passes an agent's child exactly its provider's variables.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { generateText } from "ai";
import { createLanguageModel } from "../../src/agent/model/model-factory.ts";
import { providerEnvNames, providerEnvSettings } from "../../src/config/provider-env.ts";
import type { ModelResource, ModelSpec } from "../../src/config/types.ts";
import { startLoopbackAnthropic, type LoopbackAnthropic } from "../helpers/loopback-anthropic.ts";
import { startLoopbackLlm, type LoopbackLlm } from "../helpers/loopback-llm.ts";

const servers: (LoopbackAnthropic | LoopbackLlm)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const model = (spec: ModelSpec): ModelResource => ({
  apiVersion: "goondan.ai/v1",
  kind: "Model",
  metadata: { name: "m" },
  spec,
  source: { file: "/x/goondan.yaml", docIndex: 0, baseDir: "/x" },
});

describe("provider settings from the environment", () => {
  it("sends an anthropic Model with no endpoint or apiKey to ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY", async () => {
    const server = await startLoopbackAnthropic({ reply: "from the env endpoint" });
    servers.push(server);
    const language = await createLanguageModel({
      resource: model({ provider: "anthropic", model: "claude-sonnet-4-5" }),
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-env" },
    });
    const { text } = await generateText({ model: language, prompt: "hi" });
    expect(text).toBe("from the env endpoint");
    expect(server.requests[0]).toMatchObject({ path: "/v1/messages", apiKey: "sk-env" });
  });

  it("lets the Model's endpoint and resolved apiKey win over the variables", async () => {
    const chosen = await startLoopbackAnthropic({ reply: "chosen" });
    const ignored = await startLoopbackAnthropic({ reply: "ignored" });
    servers.push(chosen, ignored);
    const language = await createLanguageModel({
      resource: model({ provider: "anthropic", model: "claude-sonnet-4-5", endpoint: chosen.url }),
      apiKey: "sk-model",
      env: { ANTHROPIC_BASE_URL: ignored.url, ANTHROPIC_API_KEY: "sk-env" },
    });
    expect((await generateText({ model: language, prompt: "hi" })).text).toBe("chosen");
    expect(chosen.requests[0]?.apiKey).toBe("sk-model");
    expect(ignored.requests).toHaveLength(0);
  });

  it("sends an openai chat Model with no endpoint to OPENAI_BASE_URL", async () => {
    const llm = await startLoopbackLlm({ replies: [{ text: "openai via env" }] });
    servers.push(llm);
    const language = await createLanguageModel({
      resource: model({ provider: "openai", model: "gpt-x", options: { api: "chat" } }),
      env: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "sk-openai" },
    });
    expect((await generateText({ model: language, prompt: "hi" })).text).toBe("openai via env");
    expect(llm.requests[0]?.headers.authorization).toBe("Bearer sk-openai");
  });

  it("treats an empty variable as unset and names each provider's variables", () => {
    expect(providerEnvSettings("openai", { OPENAI_API_KEY: "", OPENAI_BASE_URL: "http://h/v1" })).toEqual({
      baseURL: "http://h/v1",
    });
    expect(providerEnvNames("anthropic")).toEqual(["ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"]);
    expect(providerEnvNames("google")).toEqual(["GOOGLE_GENERATIVE_AI_API_KEY", "GOOGLE_GENERATIVE_AI_BASE_URL"]);
    expect(providerEnvNames("openai-compatible")).toEqual([]);
  });
});
