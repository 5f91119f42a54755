/**
 * Test helpers for the built-in extensions: an ExtensionUse built straight from src/base/goondan.yaml (the
 * package's own config, with a test's overrides merged over it, as an Agent's `config` would be), and a turn
 * environment with those extensions loaded through the real loadExtensions (api.model on the given model).
 */
import { readFileSync } from "node:fs";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { parseAllDocuments } from "yaml";
import type { ExtensionResource } from "../../src/config/types.ts";
import { EventBus } from "../../src/agent/extensions/event-bus.ts";
import { loadExtensions, type ExtensionUse } from "../../src/agent/extensions/load-extensions.ts";
import { extensionModel } from "../../src/agent/model/extension-model.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { createLogger } from "../../src/shared/logger.ts";
import type { AgentToolRuntime } from "../../src/tools/types.ts";
import { testEnv, type TestEnv } from "../agent/support/test-env.ts";
import { BASE_DIR, BASE_FILE } from "./base-tools.ts";

export function baseExtensionUse(name: string, config: JsonObject = {}): ExtensionUse {
  const documents = parseAllDocuments(readFileSync(BASE_FILE, "utf8")).map(
    (document) =>
      document.toJSON() as { kind?: string; metadata: { name: string }; spec: { entry: string; config?: JsonObject } },
  );
  const docIndex = documents.findIndex((document) => document.kind === "Extension" && document.metadata.name === name);
  const document = documents[docIndex];
  if (document === undefined) throw new Error(`@goondan/base has no Extension ${name}`);
  const resource = {
    apiVersion: "goondan.ai/v1",
    kind: "Extension",
    metadata: { name },
    spec: document.spec,
    source: { file: BASE_FILE, docIndex, package: "@goondan/base", baseDir: BASE_DIR },
  } as ExtensionResource;
  return { resource, config: { ...(document.spec.config ?? {}), ...config } };
}

export interface ExtensionHarness extends TestEnv {
  /** Log lines of the extensions, parsed. */
  logs: Record<string, unknown>[];
}

export async function withBaseExtensions(options: {
  model: LanguageModelV3;
  uses: ExtensionUse[];
  runtime?: AgentToolRuntime;
  systemPrompt?: string;
  maxStepsPerTurn?: number;
  stateRoot?: string;
}): Promise<ExtensionHarness> {
  const harness = testEnv({
    model: options.model,
    ...(options.systemPrompt === undefined ? {} : { systemPrompt: options.systemPrompt }),
    ...(options.maxStepsPerTurn === undefined ? {} : { maxStepsPerTurn: options.maxStepsPerTurn }),
    ...(options.stateRoot === undefined ? {} : { stateRoot: options.stateRoot }),
  });
  const runtime = options.runtime;
  if (runtime !== undefined) harness.env.runtime = () => runtime;
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger("agent", {
    level: "debug",
    destination: { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  });
  await loadExtensions({
    extensions: options.uses,
    agent: { name: harness.env.agentName, instanceKey: harness.env.instanceKey, requiredTools: [], tools: [] },
    pipeline: harness.env.pipeline,
    registerTool: (item, handler) => harness.registerTool(item, handler),
    state: harness.extensionState,
    events: new EventBus(),
    logger,
    model: extensionModel({
      model: options.model,
      streaming: false,
      params: {},
      retryPolicy: { maxRetries: 0 },
      logger,
    }),
  });
  return { ...harness, logs };
}
