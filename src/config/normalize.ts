/**
 * Turning a schema-valid document into a typed resource with every default applied (SPEC §1): refs
 * normalized to ObjectRef, `{ref}` list items unwrapped, Agent extensions to {ref, config?}, Swarm
 * instanceKey and policy, Tool errorMessageLimit and export parameters, Connection ingress. A ref to a
 * kind that cannot be used in its field is set aside as a WrongKindRef: check-refs reports it
 * (E_CONFIG_REF_KIND) once every resource is known, with the names of the expected kind that exist. Refs are read
 * in normalize-ref.ts, a Connection in normalize-connection.ts.
 */
import type { JsonObject } from "../shared/json.ts";
import { isJsonObject } from "../shared/json.ts";
import { normalizeAgentProcess } from "./agent-process.ts";
import { DEFAULT_ERROR_MESSAGE_LIMIT, defaultParameters, defaultPolicy } from "./defaults.ts";
import type { DocumentSite, IssueList } from "./issues.ts";
import { normalizeConnection, normalizeValueSource } from "./normalize-connection.ts";
import {
  normalizeRef,
  normalizeRefList,
  type NormalizeContext as Context,
  type Raw,
  type RefUse,
  type WrongKindRef,
} from "./normalize-ref.ts";
import type {
  AgentExtensionUse,
  AgentSpec,
  AnyResource,
  ConnectorSpec,
  ExtensionSpec,
  Kind,
  Metadata,
  ModelSpec,
  PackageSpec,
  ResourceSource,
  RuntimeEventRetention,
  SwarmPolicy,
  SwarmSpec,
  ToolSpec,
} from "./types.ts";
import { API_VERSION } from "./types.ts";
import { normalizeEval } from "./normalize-eval.ts";
import { parseDuration } from "./schedule-settings.ts";

export type { RefUse, WrongKindRef };
export { normalizeValueSource };

export function normalizeResource(options: {
  kind: Kind;
  value: JsonObject;
  site: DocumentSite;
  issues: IssueList;
  source: ResourceSource;
}): { resource: AnyResource; refs: RefUse[]; wrongKindRefs: WrongKindRef[] } {
  const context: Context = { site: options.site, issues: options.issues, refs: [], wrongKinds: [] };
  return { resource: buildResource(options, context), refs: context.refs, wrongKindRefs: context.wrongKinds };
}

function buildResource(
  options: { kind: Kind; value: JsonObject; source: ResourceSource },
  context: Context,
): AnyResource {
  const { kind, value, source } = options;
  const raw = value as Raw;
  const metadata = normalizeMetadata(raw.metadata);
  const spec: Raw = raw.spec ?? {};
  const envelope = { apiVersion: API_VERSION as typeof API_VERSION, metadata, source };
  switch (kind) {
    case "Package":
      return { ...envelope, kind, spec: normalizePackage(spec) };
    case "Model":
      return { ...envelope, kind, spec: normalizeModel(spec) };
    case "Agent":
      return { ...envelope, kind, spec: normalizeAgent(spec, context) };
    case "Swarm":
      return { ...envelope, kind, spec: normalizeSwarm(spec, metadata.name, context) };
    case "Tool":
      return { ...envelope, kind, spec: normalizeTool(spec) };
    case "Extension":
      return { ...envelope, kind, spec: normalizeExtension(spec) };
    case "Connector":
      return { ...envelope, kind, spec: normalizeConnector(spec) };
    case "Connection":
      return { ...envelope, kind, spec: normalizeConnection(spec, context) };
    case "Eval":
      return {
        ...envelope,
        kind,
        spec: normalizeEval(
          spec,
          (input, expected, segments) => normalizeRef(input, expected, segments, context) as never,
        ),
      };
  }
}

function normalizeMetadata(raw: Raw): Metadata {
  return {
    name: raw.name,
    ...(raw.labels ? { labels: { ...raw.labels } } : {}),
    ...(raw.annotations ? { annotations: { ...raw.annotations } } : {}),
  };
}

function normalizePackage(spec: Raw): PackageSpec {
  const dependencies: string[] = [];
  const versions: Record<string, string> = {};
  for (const dependency of (spec.dependencies ?? []) as (string | { name: string; version?: string })[]) {
    if (typeof dependency === "string") {
      dependencies.push(dependency);
    } else {
      dependencies.push(dependency.name);
      if (dependency.version !== undefined) versions[dependency.name] = dependency.version;
    }
  }
  return {
    ...(spec.version !== undefined ? { version: spec.version } : {}),
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    ...(spec.access !== undefined ? { access: spec.access } : {}),
    ...(spec.registry !== undefined ? { registry: { url: spec.registry.url } } : {}),
    dependencies,
    ...(Object.keys(versions).length > 0 ? { dependencyVersions: versions } : {}),
  };
}

function normalizeModel(spec: Raw): ModelSpec {
  return {
    provider: spec.provider,
    model: spec.model,
    ...(spec.apiKey !== undefined ? { apiKey: normalizeValueSource(spec.apiKey) } : {}),
    ...(spec.endpoint !== undefined ? { endpoint: spec.endpoint } : {}),
    ...(spec.options !== undefined ? { options: spec.options } : {}),
    ...(spec.capabilities !== undefined ? { capabilities: spec.capabilities } : {}),
    ...(spec.pricing !== undefined ? { pricing: { ...spec.pricing } } : {}),
    ...(spec.rateLimit !== undefined ? { rateLimit: { ...spec.rateLimit } } : {}),
  };
}

function normalizeAgent(spec: Raw, context: Context): AgentSpec {
  const promptField = spec.prompt !== undefined ? "prompt" : "prompts";
  if (spec.prompt !== undefined && spec.prompts !== undefined) {
    context.issues.at(context.site, ["spec", "prompts"], {
      code: "E_CONFIG_PROMPT_CONFLICT",
      message: "expected one of spec.prompt or spec.prompts, found both",
      suggestion: "keep spec.prompt only",
    });
  }
  const prompt: Raw = spec[promptField] ?? {};
  if (spec.system !== undefined) {
    const written = prompt.system !== undefined || prompt.systemRef !== undefined;
    context.issues.at(context.site, ["spec", "system"], {
      code: written ? "E_CONFIG_PROMPT_CONFLICT" : "W_CONFIG_DEPRECATED_FIELD",
      message: written
        ? `expected one of spec.system or spec.${promptField}, found both`
        : "spec.system is the deprecated spelling of spec.prompt.system; it is used as the system prompt",
      suggestion: "write the system prompt as spec.prompt.system (or spec.prompt.systemRef for a file)",
    });
  }
  const system = prompt.system ?? (prompt.systemRef === undefined ? spec.system : undefined);
  const modelRef = normalizeRef(spec.modelConfig.modelRef, "Model", ["spec", "modelConfig", "modelRef"], context);
  const extensions: AgentExtensionUse[] = ((spec.extensions ?? []) as unknown[]).flatMap((item, index) => {
    const ref = normalizeRef(item, "Extension", ["spec", "extensions", index], context);
    if (!ref) return [];
    const config = isJsonObject(item) && isJsonObject(item.config) ? item.config : undefined;
    return [{ ref, ...(config ? { config } : {}) }];
  });
  return {
    // An invalid modelRef already has its issue; the placeholder never leaves an invalid bundle.
    modelConfig: { modelRef: modelRef ?? { kind: "Model", name: "" }, params: { ...(spec.modelConfig.params ?? {}) } },
    prompt: {
      ...(system !== undefined ? { system } : {}),
      ...(prompt.systemRef !== undefined ? { systemRef: prompt.systemRef } : {}),
    },
    tools: normalizeRefList(spec.tools, "Tool", ["spec", "tools"], context),
    extensions,
    ...(spec.requiredTools !== undefined ? { requiredTools: [...spec.requiredTools] } : {}),
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    process: normalizeAgentProcess(spec.process, (path, issue) => context.issues.at(context.site, path, issue)),
    ...(spec.budget !== undefined ? { budget: { ...spec.budget } } : {}),
    ...(spec.limits !== undefined ? { limits: { ...spec.limits } } : {}),
  };
}

function normalizeSwarm(spec: Raw, name: string, context: Context): SwarmSpec {
  const entryAgent = normalizeRef(spec.entryAgent, "Agent", ["spec", "entryAgent"], context);
  return {
    entryAgent: entryAgent ?? { kind: "Agent", name: "" },
    agents: normalizeRefList(spec.agents, "Agent", ["spec", "agents"], context),
    instanceKey: spec.instanceKey ?? name,
    policy: mergePolicy(spec.policy ?? {}),
    ...(spec.budget !== undefined ? { budget: { ...spec.budget } } : {}),
  };
}

function mergePolicy(raw: Raw): SwarmPolicy {
  const base = defaultPolicy();
  return {
    maxStepsPerTurn: raw.maxStepsPerTurn ?? base.maxStepsPerTurn,
    maxDelegationDepth: raw.maxDelegationDepth ?? base.maxDelegationDepth,
    requestTimeoutMs: raw.requestTimeoutMs ?? base.requestTimeoutMs,
    shutdown: { ...base.shutdown, ...raw.shutdown },
    restart: { ...base.restart, ...raw.restart },
    lifecycle: mergeLifecycle(base.lifecycle, raw.lifecycle ?? {}),
    ...(raw.retention?.runtimeEvents === undefined
      ? {}
      : { retention: { runtimeEvents: runtimeEventRetention(raw.retention.runtimeEvents) } }),
  };
}

function runtimeEventRetention(raw: Raw): RuntimeEventRetention {
  const maxAgeMs = typeof raw.maxAge === "string" ? parseDuration(raw.maxAge) : undefined;
  return {
    ...(maxAgeMs === undefined ? {} : { maxAgeMs }),
    ...(raw.maxRows === undefined ? {} : { maxRows: raw.maxRows }),
  };
}

/** `maxProcesses` is the older spelling of `maxInstances` (the cap was on processes when each instance had one). */
function mergeLifecycle(base: SwarmPolicy["lifecycle"], raw: Raw): SwarmPolicy["lifecycle"] {
  const { maxProcesses, ...rest } = raw;
  return { ...base, ...rest, maxInstances: raw.maxInstances ?? maxProcesses ?? base.maxInstances };
}

function normalizeTool(spec: Raw): ToolSpec {
  return {
    entry: spec.entry,
    errorMessageLimit: spec.errorMessageLimit ?? DEFAULT_ERROR_MESSAGE_LIMIT,
    exports: (spec.exports as Raw[]).map((item) => ({
      name: item.name,
      ...(item.description !== undefined ? { description: item.description } : {}),
      parameters: item.parameters ?? defaultParameters(),
      ...(item.timeoutMs !== undefined ? { timeoutMs: item.timeoutMs } : {}),
      ...(item.idempotent === true ? { idempotent: true } : {}),
    })),
    ...(spec.config !== undefined ? { config: spec.config } : {}),
  };
}

function normalizeExtension(spec: Raw): ExtensionSpec {
  return { entry: spec.entry, ...(spec.config !== undefined ? { config: spec.config } : {}) };
}

function normalizeConnector(spec: Raw): ConnectorSpec {
  return {
    entry: spec.entry,
    events: (spec.events as Raw[]).map((event) => ({
      name: event.name,
      ...(event.aliases ? { aliases: [...event.aliases] } : {}),
      ...(event.nameFromConfig ? { nameFromConfig: event.nameFromConfig } : {}),
      ...(event.properties ? { properties: event.properties } : {}),
    })),
    ...(spec.network === "none" || spec.network === "host" ? { network: spec.network } : {}),
    ...(spec.isolation === "auto" || spec.isolation === "required" || spec.isolation === "none"
      ? { isolation: spec.isolation }
      : {}),
  };
}
