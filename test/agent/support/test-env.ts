/** Builds a TurnEnvironment over a temp instance directory, a scripted model and a real ToolRegistry. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModel } from "ai";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import { newId } from "../../../src/shared/ids.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { instancePaths, type InstancePaths } from "../../../src/shared/state-paths.ts";
import { ToolRegistry } from "../../../src/tools/tool-registry.ts";
import type { AgentToolRuntime, ToolCatalogItem, ToolHandler } from "../../../src/tools/types.ts";
import { ConversationStore } from "../../../src/agent/conversation/conversation-store.ts";
import { PendingResults } from "../../../src/agent/conversation/pending-results.ts";
import { PipelineRegistry } from "../../../src/agent/extensions/pipeline-registry.ts";
import { MemoryRuntimeEvents } from "../../../src/agent/instance/runtime-event-log.ts";
import type { TurnEnvironment } from "../../../src/agent/loop/turn-environment.ts";

export const failingRuntime: AgentToolRuntime = new Proxy({} as AgentToolRuntime, {
  get: (_target, property) => () => Promise.reject(new Error(`unexpected runtime.${String(property)} call in a unit test`)),
});

export function tempStateRoot(): string {
  return mkdtempSync(join(tmpdir(), "goondan-agent-test-"));
}

export interface TestEnv {
  env: TurnEnvironment;
  paths: InstancePaths;
  events: MemoryRuntimeEvents;
  registerTool(item: ToolCatalogItem, handler: ToolHandler): void;
  reopenStore(): ConversationStore;
}

export function testEnv(options: { model: LanguageModel; stateRoot?: string; maxStepsPerTurn?: number; systemPrompt?: string }): TestEnv {
  const paths = instancePaths({ stateRoot: options.stateRoot ?? tempStateRoot(), swarmInstanceKey: "swarm", agent: "assistant", instanceKey: "main" });
  const registry = new ToolRegistry();
  const events = new MemoryRuntimeEvents();
  const env: TurnEnvironment = {
    agentName: "assistant",
    instanceKey: "main",
    model: options.model,
    params: {},
    systemPrompt: options.systemPrompt ?? "You are a test assistant.",
    maxStepsPerTurn: options.maxStepsPerTurn ?? 8,
    registry,
    agentTools: [],
    pipeline: new PipelineRegistry(),
    store: ConversationStore.open({ basePath: paths.base, eventsPath: paths.events }),
    runtimeEvents: events,
    workdir: paths.workdir,
    logger: silentLogger(),
    runtime: () => failingRuntime,
    pendingResults: new PendingResults(join(paths.root, "pending-results.jsonl")),
    sleep: async () => {},
    ids: newId,
    now: Date.now,
  };
  return {
    env,
    paths,
    events,
    registerTool: (item, handler) => registry.register(item, handler),
    reopenStore: () => ConversationStore.open({ basePath: paths.base, eventsPath: paths.events }),
  };
}

let eventCounter = 0;
export function userEvent(input: string, overrides: Partial<AgentEvent> = {}): AgentEvent {
  eventCounter += 1;
  return {
    id: `evt_test${eventCounter}`,
    type: "user.input",
    input,
    agent: "assistant",
    instanceKey: "main",
    source: { kind: "user", name: "test" },
    traceId: "0".repeat(32),
    callChain: [],
    metadata: {},
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}
