/**
 * The typed shape of a validated goondan.yaml: resource envelopes, each kind's spec with defaults
 * applied, ObjectRef, ValueSource, and the ConfigIssue that validation reports. Every other layer
 * reads configuration through these types only.
 */
import type { JsonObject, JsonValue } from "../shared/json.ts";
import type { EvalSpec } from "./eval-types.ts";
import type { AgentProcessSpec } from "./agent-process.ts";
import type { AgentLimits, BudgetSpec } from "./limit-types.ts";
export type * from "./limit-types.ts";

export type * from "./eval-types.ts";

export const API_VERSION = "goondan.ai/v1";
export const BUILTIN_PACKAGE = "@goondan/base";

export const KINDS = [
  "Package",
  "Model",
  "Agent",
  "Swarm",
  "Tool",
  "Extension",
  "Connector",
  "Connection",
  "Eval",
] as const;
export type Kind = (typeof KINDS)[number];

/** `"Kind/name"` or `{kind, name, package?}`; list items may wrap it as `{ref: …}`. */
export type ObjectRefInput = string | { kind: string; name: string; package?: string } | { ref: ObjectRefInput };
export interface ObjectRef {
  kind: Kind;
  name: string;
  package?: string;
}

export type ValueSource =
  | { value: string }
  | { valueFrom: { env: string } }
  | { valueFrom: { secretRef: { ref: string; key: string } } };

export interface Metadata {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Where a resource came from, for error paths: `file#docIndex`. */
export interface ResourceSource {
  /** Absolute path of the YAML file. */
  file: string;
  /** Zero-based index of the document in that file. */
  docIndex: number;
  /** The package the resource belongs to (`@goondan/base` for built-ins, else the bundle's package or undefined). */
  package?: string;
  /** Absolute directory that relative entry paths resolve against. */
  baseDir: string;
}

export interface Resource<K extends Kind = Kind, S = unknown> {
  apiVersion: typeof API_VERSION;
  kind: K;
  metadata: Metadata;
  spec: S;
  source: ResourceSource;
}

export interface PackageSpec {
  version?: string;
  description?: string;
  /** Dependency package names; written as strings or as `{name, version}` objects. */
  dependencies?: string[];
  /** Version ranges of dependencies written as `{name, version}`, by name. */
  dependencyVersions?: Record<string, string>;
  access?: "public" | "restricted";
  registry?: { url: string };
}

export type ModelProvider = "anthropic" | "openai" | "google" | "openai-compatible" | "replay";
export interface ModelSpec {
  provider: ModelProvider;
  model: string;
  apiKey?: ValueSource;
  endpoint?: string;
  /** Provider options; `replay` reads `options.cassette` (bundle-relative JSONL path). */
  options?: JsonObject;
  /** Feature flags of the public format (`streaming`, `toolCalling`, …); informational. */
  capabilities?: Record<string, boolean>;
  /** Prices in US dollars per million tokens, for the costs `goondan eval` reports. Default: src/config/model-prices.ts. */
  pricing?: ModelPricing;
  /** Provider pacing shared by every process of this Model (the orchestrator grants each call a permit). */
  rateLimit?: ModelRateLimit;
}

/** Requests and tokens per minute one Model may use, across all its processes (docs/limits.md#provider-pacing). */
export interface ModelRateLimit {
  requestsPerMinute?: number;
  tokensPerMinute?: number;
}

export interface ModelPricing {
  inputPerMillion: number;
  outputPerMillion: number;
}

export interface ModelParams {
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  /** Other provider call settings, passed through. */
  [key: string]: JsonValue | undefined;
}

export interface AgentExtensionUse {
  ref: ObjectRef;
  /** Merged over `Extension.spec.config`. */
  config?: JsonObject;
}

export interface AgentSpec {
  modelConfig: { modelRef: ObjectRef; params: ModelParams };
  prompt: { system?: string; systemRef?: string };
  tools: ObjectRef[];
  extensions: AgentExtensionUse[];
  requiredTools?: string[];
  description?: string;
  /** Normalized bundles always have it; absent reads as the defaults (agentProcess in agent-process.ts). */
  process?: AgentProcessSpec;
  budget?: BudgetSpec;
  limits?: AgentLimits;
}

export interface SwarmPolicy {
  maxStepsPerTurn: number; // 32
  maxDelegationDepth: number; // 8
  requestTimeoutMs: number; // 60000
  shutdown: { gracePeriodSeconds: number }; // 30
  restart: { maxConsecutiveCrashes: number; initialBackoffMs: number; maxBackoffMs: number }; // 5, 1000, 300000
  lifecycle: {
    idleSeconds: number;
    /** Live instances on this node at once; beyond it new work queues (an idle instance is let go to make room). */
    maxInstances: number;
    heartbeatTimeoutSeconds: number;
    ttlSeconds?: number;
    gcGraceSeconds?: number;
  }; // 600, 10000, 60
  /** How long stored records are kept (absent: for ever). */
  retention?: { runtimeEvents?: RuntimeEventRetention };
}

/** Runtime events older than `maxAgeMs`, and past the newest `maxRows` of the swarm, are deleted in the background. */
export interface RuntimeEventRetention {
  maxAgeMs?: number;
  maxRows?: number;
}

export interface SwarmSpec {
  entryAgent: ObjectRef;
  agents: ObjectRef[];
  /** Default: the Swarm's metadata.name. */
  instanceKey: string;
  policy: SwarmPolicy;
  /** Tokens and cost of the whole swarm instance (every agent together) per period. */
  budget?: BudgetSpec;
}

export interface ToolExportSpec {
  name: string;
  description?: string;
  parameters: JsonObject; // default {type: "object", properties: {}}
  /** Per-export timeout; default 60000. */
  timeoutMs?: number;
  /**
   * Running it twice with the same arguments does no more than running it once (a read, a pure function): its
   * call is recorded before it runs without waiting for the disk (tools/tool-registry.ts ToolRegistryEntry).
   */
  idempotent?: boolean;
}

export interface ToolSpec {
  entry: string;
  errorMessageLimit: number; // 1000
  exports: ToolExportSpec[];
  /** Tool-specific settings (e.g. file-system `root`, http-fetch `allowPrivateNetwork`). */
  config?: JsonObject;
}

export interface ExtensionSpec {
  entry: string;
  config?: JsonObject;
}

export interface ConnectorEventSpec {
  name: string;
  /** Older names an ingress rule may still match this event by (the rule is rewritten to `name` at load). */
  aliases?: string[];
  /** A Connection `config` key whose value, when set, is the event's name instead of `name`. */
  nameFromConfig?: string;
  properties?: Record<string, { type: string; optional?: boolean }>;
}

export interface ConnectorSpec {
  entry: string;
  events: ConnectorEventSpec[];
  /** The connector process's network: "none" (default) or "host". */
  network?: "none" | "host";
  /** Whether it runs in its sandbox: "auto" (default), "required" or "none". */
  isolation?: "auto" | "required" | "none";
}

export interface IngressRule {
  match: { event?: string; properties?: Record<string, JsonValue> };
  route: { agentRef?: ObjectRef; instanceKey?: string; instanceKeyProperty?: string; instanceKeyPrefix?: string };
  /** The matched event is delivered as this signal to the turns waiting for it (`timer__waitForSignal`), not routed. */
  signal?: string;
}

/** The secret under which `verify.webhook.signingSecret` reaches the connector (the public connectors read it there). */
export const SIGNING_SECRET_KEY = "signingSecret";

export interface ConnectionVerify {
  /** Webhook signature verification; the secret also reaches the connector as `secrets.signingSecret`. */
  webhook?: { signingSecret: ValueSource };
}

export interface ConnectionSpec {
  connectorRef: ObjectRef;
  swarmRef?: ObjectRef;
  config?: Record<string, ValueSource | JsonValue>;
  secrets?: Record<string, ValueSource>;
  verify?: ConnectionVerify;
  ingress: { rules: IngressRule[] };
}

export type PackageResource = Resource<"Package", PackageSpec>;
export type ModelResource = Resource<"Model", ModelSpec>;
export type AgentResource = Resource<"Agent", AgentSpec>;
export type SwarmResource = Resource<"Swarm", SwarmSpec>;
export type ToolResource = Resource<"Tool", ToolSpec>;
export type ExtensionResource = Resource<"Extension", ExtensionSpec>;
export type ConnectorResource = Resource<"Connector", ConnectorSpec>;
export type ConnectionResource = Resource<"Connection", ConnectionSpec>;
export type EvalResource = Resource<"Eval", EvalSpec>;
export type AnyResource =
  | PackageResource
  | ModelResource
  | AgentResource
  | SwarmResource
  | ToolResource
  | ExtensionResource
  | ConnectorResource
  | ConnectionResource
  | EvalResource;

export type ResourceOfKind<K extends Kind> = Extract<AnyResource, { kind: K }>;

/** A loaded, validated bundle: local resources plus the built-in `@goondan/base` ones. */
export interface Bundle {
  /** Absolute bundle directory. */
  dir: string;
  /** Absolute path of goondan.yaml. */
  file: string;
  /** Every resource, local first, then built-ins (which have `source.package === "@goondan/base"`). */
  resources: AnyResource[];
}

export type IssueSeverity = "error" | "warning";

export interface ConfigIssue {
  /** Stable code: `E_CONFIG_*` for errors, `W_CONFIG_*` for warnings. */
  code: string;
  severity: IssueSeverity;
  /** Expected vs found. */
  message: string;
  /** `file#docIndex.spec.field` (file relative to the bundle dir). */
  path: string;
  suggestion?: string;
  /** 1-based line and column in the YAML file, when the issue points at a node of it. */
  line?: number;
  column?: number;
}
