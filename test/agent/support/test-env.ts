/**
 * Builds a TurnEnvironment for agent unit tests over a real store (SQLite, in a temp state root), a scripted model
 * and a real ToolRegistry. Its commits go straight to the store (the orchestrator's part in production); `finishTurn`
 * commits what a turn left, as the turn's end would; `reopen` builds a fresh environment hydrated from the store, as a
 * restarted child would be.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { ModelPrompt } from "../../../src/agent/model/model-prompt.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import type { Message } from "../../../src/protocol/conversation.ts";
import { newId } from "../../../src/shared/ids.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { instancePaths, type InstancePaths } from "../../../src/shared/state-paths.ts";
import { SqliteStore } from "../../../src/store/sqlite/sqlite-store.ts";
import type { InstanceRef } from "../../../src/store/store.ts";
import { ToolRegistry } from "../../../src/tools/tool-registry.ts";
import type { AgentToolRuntime, ToolCatalogItem, ToolHandler } from "../../../src/tools/types.ts";
import { Conversation } from "../../../src/agent/conversation/conversation.ts";
import { PendingResults } from "../../../src/agent/conversation/pending-results.ts";
import { ExtensionState } from "../../../src/agent/extensions/extension-state.ts";
import { PipelineRegistry } from "../../../src/agent/extensions/pipeline-registry.ts";
import { MemoryRuntimeEvents } from "../../../src/agent/loop/runtime-event-sink.ts";
import type { TurnEnvironment } from "../../../src/agent/loop/turn-environment.ts";

export const failingRuntime: AgentToolRuntime = new Proxy({} as AgentToolRuntime, {
  get: (_target, property) => () =>
    Promise.reject(new Error(`unexpected runtime.${String(property)} call in a unit test`)),
});

export function tempStateRoot(): string {
  return mkdtempSync(join(tmpdir(), "goondan-agent-test-"));
}

/** One store per state root, shared by every environment on it (one writer, as in production). */
const stores = new Map<string, SqliteStore>();
export function storeFor(stateRoot: string): SqliteStore {
  let store = stores.get(stateRoot);
  if (store === undefined) {
    store = new SqliteStore(join(stateRoot, "goondan.db"));
    stores.set(stateRoot, store);
  }
  return store;
}

export const TEST_INSTANCE: InstanceRef = { swarm: "swarm", agent: "assistant", instanceKey: "main" };

export interface TestEnv {
  /** Its pipeline is a real PipelineRegistry, so a test registers middleware on it. */
  env: TurnEnvironment & { pipeline: PipelineRegistry };
  paths: InstancePaths;
  stateRoot: string;
  store: SqliteStore;
  events: MemoryRuntimeEvents;
  extensionState: ExtensionState;
  registerTool(item: ToolCatalogItem, handler: ToolHandler): void;
  /** Commits what the last turn changed since its last commit, as the end of a turn does. */
  finishTurn(): Promise<void>;
  /** The conversation as the store holds it (what a restarted child would be handed). */
  durableMessages(): Message[];
  /** Commits what the last turn left (finishTurn), then the conversation as the store holds it. */
  committed(): Promise<Message[]>;
}

export function testEnv(options: {
  model: LanguageModelV3;
  streaming?: boolean;
  stateRoot?: string;
  maxStepsPerTurn?: number;
  systemPrompt?: string;
}): TestEnv {
  const stateRoot = options.stateRoot ?? tempStateRoot();
  const store = storeFor(stateRoot);
  const paths = instancePaths({
    stateRoot,
    swarmInstanceKey: TEST_INSTANCE.swarm,
    agent: TEST_INSTANCE.agent,
    instanceKey: TEST_INSTANCE.instanceKey,
  });
  const state = store.instanceState(TEST_INSTANCE);
  const registry = new ToolRegistry();
  const events = new MemoryRuntimeEvents();
  const commit = (changes: Parameters<TurnEnvironment["commit"]>[0]) => store.commit(TEST_INSTANCE, changes);
  const pendingResults = new PendingResults(state.pendingResults);
  const env: TestEnv["env"] = {
    agentName: TEST_INSTANCE.agent,
    instanceKey: TEST_INSTANCE.instanceKey,
    model: options.model,
    streaming: options.streaming ?? false,
    prompt: new ModelPrompt(options.model),
    params: {},
    systemPrompt: options.systemPrompt ?? "You are a test assistant.",
    maxStepsPerTurn: options.maxStepsPerTurn ?? 8,
    registry,
    agentTools: [],
    pipeline: new PipelineRegistry(),
    conversation: new Conversation(state.messages, { older: (query) => store.olderMessages(TEST_INSTANCE, query) }),
    commit,
    runtimeEvents: events,
    workdir: paths.workdir,
    logger: silentLogger(),
    runtime: () => failingRuntime,
    pendingResults,
    sleep: async () => {},
    ids: newId,
    now: Date.now,
  };
  return {
    env,
    paths,
    stateRoot,
    store,
    events,
    extensionState: new ExtensionState(state.extensionState, commit),
    registerTool: (item, handler) => registry.register(item, handler),
    finishTurn: () => commit({ changes: env.conversation.takeChanges(), consumed: pendingResults.takeConsumed() }),
    durableMessages: () => store.instanceState(TEST_INSTANCE).messages,
    committed: async () => {
      await commit({ changes: env.conversation.takeChanges(), consumed: pendingResults.takeConsumed() });
      return store.instanceState(TEST_INSTANCE).messages;
    },
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
