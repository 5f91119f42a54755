/**
 * What every instance of one agent shares under one loaded bundle, worked out once per process and kept while the
 * process holds that bundle: its Swarm and Agent resources, its Model, its Tools with their config resolved from the
 * env and their time capped, its Extensions' resolved config, the secrets its runtime events redact, and whether a
 * budget or rate limit puts a gate before each model call. A new conversation then builds only what is its own
 * (create-agent-instance.ts). A blueprint that cannot be built (a missing key, an unknown agent) is not kept: the
 * next instance asks again.
 */
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { agentExtensions, agentModel, agentTools, selectSwarm, swarmAgents } from "../../config/resolve.ts";
import type { AgentResource, Bundle, ExtensionResource, SwarmResource, ToolResource } from "../../config/types.ts";
import { agentRequiredEnvNames, resolveConfigValues } from "../../config/value-source.ts";
import type { JsonObject } from "../../shared/json.ts";
import { MIN_SECRET_LENGTH } from "../../shared/redact-secrets.ts";
import { ConfigError } from "../../shared/errors.ts";
import { apiKeyEnvName, resolveApiKey } from "../model/api-key.ts";
import { modelTimeoutMs } from "../model/model-call-timeout.ts";
import { createLanguageModel, modelStreams } from "../model/model-factory.ts";
import { RECORD_CASSETTE_ENV, wrapWithRecorder } from "../model/recording-model.ts";
import { capToolTime } from "./cap-tool-time.ts";

export interface AgentBlueprint {
  swarm: SwarmResource;
  agent: AgentResource;
  model: LanguageModelV3;
  /** Whether the Model streams (never for a model handed in by a test). */
  streaming: boolean;
  tools: ToolResource[];
  extensions: { resource: ExtensionResource; config: JsonObject }[];
  /** The values of the env vars this agent's resources name (its model key, its tools' and extensions' config). */
  secrets: string[];
  /** A budget or the Model's rateLimit applies: each model call asks the gate first. */
  limited: boolean;
  modelTimeoutMs: number;
}

export interface AgentBlueprintOptions {
  bundle: Bundle;
  /** Default: the bundle's only Swarm. */
  swarm?: string;
  agent: string;
  env: Record<string, string | undefined>;
  /** Tests: this model instead of the one the bundle names. */
  model?: LanguageModelV3;
}

interface Kept {
  env: AgentBlueprintOptions["env"];
  model: LanguageModelV3 | undefined;
  blueprint: Promise<AgentBlueprint>;
}

const kept = new WeakMap<Bundle, Map<string, Kept>>();

/** The agent's blueprint under this bundle, built by the first instance that asks. */
export function agentBlueprint(options: AgentBlueprintOptions): Promise<AgentBlueprint> {
  let byAgent = kept.get(options.bundle);
  if (byAgent === undefined) kept.set(options.bundle, (byAgent = new Map()));
  const key = `${options.swarm ?? ""}\u0000${options.agent}`;
  const found = byAgent.get(key);
  if (found !== undefined && found.env === options.env && found.model === options.model) return found.blueprint;
  const blueprint = buildBlueprint(options);
  const entry: Kept = { env: options.env, model: options.model, blueprint };
  byAgent.set(key, entry);
  blueprint.catch(() => {
    if (byAgent.get(key) === entry) byAgent.delete(key);
  });
  return blueprint;
}

async function buildBlueprint(options: AgentBlueprintOptions): Promise<AgentBlueprint> {
  const { bundle, env } = options;
  const swarm = selectSwarm(bundle, options.swarm);
  const agent = swarmAgents(bundle, swarm).find((candidate) => candidate.metadata.name === options.agent);
  if (agent === undefined) {
    throw new ConfigError(
      "E_CONFIG_AGENT_NOT_IN_SWARM",
      `Agent/${options.agent} is not a member of Swarm/${swarm.metadata.name}`,
      { suggestion: `members: ${swarm.spec.agents.map((ref) => ref.name).join(", ")}` },
    );
  }
  const modelResource = agentModel(bundle, agent);
  let model = options.model;
  if (model === undefined) {
    const source = modelResource.spec.apiKey;
    const apiKey = source === undefined ? undefined : resolveApiKey(source, env);
    if (source !== undefined && apiKey === undefined) {
      throw new ConfigError(
        "E_CONFIG_ENV_MISSING",
        `Model/${modelResource.metadata.name}: spec.apiKey expects env var ${apiKeyEnvName(source) ?? "(unknown)"}, which is not set`,
      );
    }
    model = await createLanguageModel({ resource: modelResource, env, ...(apiKey === undefined ? {} : { apiKey }) });
  }
  const recordTo = env[RECORD_CASSETTE_ENV];
  if (recordTo !== undefined && recordTo !== "") model = wrapWithRecorder(model, recordTo);
  // Tools and extensions get their config with ValueSources resolved from this process's (scoped) env.
  const tools = capToolTime(
    agentTools(bundle, agent).map((tool) =>
      tool.spec.config === undefined
        ? tool
        : { ...tool, spec: { ...tool.spec, config: resolveConfigValues(tool.spec.config, env) as JsonObject } },
    ),
    agent.spec.limits?.toolCallSeconds,
  );
  return {
    swarm,
    agent,
    model,
    streaming: options.model === undefined && modelStreams(modelResource),
    tools,
    extensions: agentExtensions(bundle, agent).map((use) => ({
      ...use,
      config: resolveConfigValues(use.config, env) as JsonObject,
    })),
    secrets: agentRequiredEnvNames(bundle, agent)
      .map((name) => env[name] ?? "")
      .filter((value) => value.length >= MIN_SECRET_LENGTH),
    limited:
      agent.spec.budget !== undefined || swarm.spec.budget !== undefined || modelResource.spec.rateLimit !== undefined,
    modelTimeoutMs: modelTimeoutMs(modelResource),
  };
}
