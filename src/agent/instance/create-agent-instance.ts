/**
 * Builds an AgentInstance from a loaded bundle: what every instance of the agent shares comes from its blueprint
 * (agent-blueprint.ts: the Model, the Tools with their config resolved, the Extensions' config, worked out once per
 * process); what is the instance's own is built here: its tool registry (the Tools' modules, then what its Extensions
 * register), its Extensions' register() calls (in the Agent's order), the system prompt, the instance's durable state
 * as the orchestrator's store handed it over (conversation, pending results, extension state), the link its commits
 * and runtime events go through, and its workdir.
 * Configuration problems throw ConfigError (the child reports them as `fatal`).
 */
import { mkdirSync } from "node:fs";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { readSystemPrompt } from "../../config/resolve.ts";
import type { Bundle } from "../../config/types.ts";
import type { CommitOptions, InstanceCommit, InstanceState } from "../../protocol/instance-state.ts";
import { newId } from "../../shared/ids.ts";
import type { Logger } from "../../shared/logger.ts";
import { instancePaths, type InstancePaths } from "../../shared/state-paths.ts";
import { ToolRegistry } from "../../tools/tool-registry.ts";
import type { AgentToolRuntime, RuntimeCallContext } from "../../tools/types.ts";
import { agentBlueprint } from "./agent-blueprint.ts";
import { AgentInstance } from "./agent-instance.ts";
import { Conversation } from "../conversation/conversation.ts";
import { PendingResults } from "../conversation/pending-results.ts";
import { ToolCompletions } from "../conversation/tool-completions.ts";
import { EventBus } from "../extensions/event-bus.ts";
import { reportExtensionFailures } from "../extensions/extension-failures.ts";
import { ExtensionState } from "../extensions/extension-state.ts";
import { loadExtensions } from "../extensions/load-extensions.ts";
import { ToolApprovals } from "../loop/tool-approvals.ts";
import { PipelineRegistry } from "../extensions/pipeline-registry.ts";
import { abortableSleep } from "../model/call-with-retry.ts";
import { extensionModel } from "../model/extension-model.ts";
import { ModelPrompt } from "../model/model-prompt.ts";
import type { StepStream } from "../model/generate-step.ts";
import type { ModelGate } from "../model/model-gate.ts";
import type { InstanceLink } from "./instance-link.ts";
import { linkedRuntimeEvents } from "./linked-runtime-events.ts";
import type { TurnEnvironment } from "../loop/turn-environment.ts";

export interface CreateAgentInstanceOptions {
  bundle: Bundle;
  /** Default: the bundle's only Swarm. */
  swarm?: string;
  agent: string;
  instanceKey: string;
  stateRoot: string;
  /** `ctx.runtime` for one tool call (the child's RuntimeClient, scoped to the call). */
  runtime: (context: RuntimeCallContext) => AgentToolRuntime;
  /** The instance's durable state as the store holds it (the `hydrate` message). */
  state: InstanceState;
  /** Where its commits and runtime events go (the orchestrator, over IPC). */
  link: InstanceLink;
  logger: Logger;
  /** Default process.env (API keys, GOONDAN_RECORD_CASSETTE). */
  env?: Record<string, string | undefined>;
  /** Tests: use this model instead of the one the bundle names. */
  model?: LanguageModelV3;
  /** Where the text of a streaming Model goes as it comes (the orchestrator, over IPC). Default: nowhere. */
  stream?: StepStream;
  /** Asks the orchestrator before each model call; used only when a budget or the Model's rateLimit applies. */
  modelGate?: ModelGate;
}

export interface CreatedAgentInstance {
  instance: AgentInstance;
  paths: InstancePaths;
  /** Swarm policy the child needs (shutdown grace, request timeout). */
  policy: { requestTimeoutMs: number; gracePeriodMs: number };
}

export async function createAgentInstance(options: CreateAgentInstanceOptions): Promise<CreatedAgentInstance> {
  const { bundle, logger } = options;
  const env = options.env ?? process.env;
  const { swarm, agent, model, streaming, tools, extensions, secrets, limited, modelTimeoutMs } = await agentBlueprint({
    bundle,
    agent: options.agent,
    env,
    ...(options.swarm === undefined ? {} : { swarm: options.swarm }),
    ...(options.model === undefined ? {} : { model: options.model }),
  });
  const paths = instancePaths({
    stateRoot: options.stateRoot,
    swarmInstanceKey: swarm.spec.instanceKey,
    agent: options.agent,
    instanceKey: options.instanceKey,
  });
  // Made when a tool first asks for it: most short conversations never touch files, and a directory costs a
  // good part of a conversation's start on some file systems (over 100 µs of kernel time per mkdir on ext4 here).
  let workdirMade = false;
  const workdir = (): string => {
    if (!workdirMade) mkdirSync(paths.workdir, { recursive: true });
    workdirMade = true;
    return paths.workdir;
  };

  const registry = await ToolRegistry.fromResources(tools);
  const { link } = options;
  const commit = (changes: InstanceCommit, commitOptions?: CommitOptions) => link.commit(changes, commitOptions);
  const state = new ExtensionState(options.state.extensionState, commit);
  const runtimeEvents = linkedRuntimeEvents({
    link,
    agent: options.agent,
    instanceKey: options.instanceKey,
    now: Date.now,
    secrets,
  });
  const pipeline = new PipelineRegistry({ onFailure: reportExtensionFailures({ logger, runtimeEvents }) });
  const events = new EventBus((type, error) => logger.warn({ type, err: error }, "extension event listener threw"));
  const approvals = new ToolApprovals({
    agentName: options.agent,
    instanceKey: options.instanceKey,
    ids: newId,
    now: Date.now,
  });
  // Only when a budget or the Model's rateLimit applies: otherwise a model call costs no round trip.
  const modelGate = limited ? options.modelGate : undefined;
  await loadExtensions({
    approvals,
    // Each instance's register() gets a config of its own to keep or change.
    extensions: extensions.map((use) => ({ ...use, config: structuredClone(use.config) })),
    agent: {
      name: options.agent,
      instanceKey: options.instanceKey,
      requiredTools: agent.spec.requiredTools ?? [],
      tools: tools.map((tool) => tool.metadata.name),
      bundleDir: bundle.dir,
      stateRoot: options.stateRoot,
    },
    pipeline,
    registerTool: (item, handler, extensionName, toolOptions) =>
      registry.register(item, handler, {
        source: { type: "extension", name: extensionName },
        ...(toolOptions?.timeoutMs === undefined ? {} : { timeoutMs: toolOptions.timeoutMs }),
        ...(toolOptions?.idempotent === true ? { idempotent: true } : {}),
      }),
    unregisterTool: (name, extensionName) => registry.unregister(name, { owner: extensionName }),
    state,
    events,
    logger,
    model: extensionModel({
      model,
      streaming,
      params: agent.spec.modelConfig.params ?? {},
      timeoutMs: modelTimeoutMs,
      logger,
      ...(modelGate === undefined ? {} : { gate: modelGate }),
    }),
  });

  const pendingResults = new PendingResults(options.state.pendingResults);
  const turnEnv: TurnEnvironment = {
    agentName: options.agent,
    instanceKey: options.instanceKey,
    model,
    streaming,
    ...(streaming && options.stream !== undefined ? { stream: options.stream } : {}),
    prompt: new ModelPrompt(model),
    params: agent.spec.modelConfig.params ?? {},
    systemPrompt: await readSystemPrompt(bundle, agent),
    maxStepsPerTurn: swarm.spec.policy.maxStepsPerTurn,
    registry,
    agentTools: tools,
    pipeline,
    conversation: new Conversation(options.state.messages, { older: (query) => link.olderMessages(query) }),
    commit,
    runtimeEvents,
    get workdir() {
      return workdir();
    },
    logger,
    runtime: options.runtime,
    pendingResults,
    approvals,
    toolCompletions: new ToolCompletions({ pendingResults, commit, ids: newId, logger }),
    ids: newId,
    now: Date.now,
    sleep: abortableSleep,
    modelTimeoutMs,
    ...(agent.spec.limits?.turnSeconds === undefined ? {} : { turnTimeLimitMs: agent.spec.limits.turnSeconds * 1000 }),
    ...(modelGate === undefined ? {} : { modelGate }),
  };
  const instance = new AgentInstance({ env: turnEnv, pendingResults });
  return {
    instance,
    paths,
    policy: {
      requestTimeoutMs: swarm.spec.policy.requestTimeoutMs,
      gracePeriodMs: swarm.spec.policy.shutdown.gracePeriodSeconds * 1000,
    },
  };
}
