/**
 * The IPC protocol between the orchestrator and its Bun children (agents and connectors), carried over
 * `Bun.spawn` IPC with `serialization: "json"`. Envelope `{type, from, to, payload}`. Both sides import
 * only this file, which keeps the process boundary real: the orchestrator never sees agent internals.
 */
import type { JsonObject, JsonValue } from "../shared/json.ts";

export const ORCHESTRATOR = "orchestrator";

/** An instance address: `agent/instanceKey`. */
export type InstanceAddress = string;
export const instanceAddress = (agent: string, instanceKey: string): InstanceAddress => `${agent}/${instanceKey}`;

export interface AgentEvent {
  id: string;
  /** `user.input`, `agent.request`, `agent.send`, `connector.<event>`, `results.arrived` … */
  type: string;
  input: string;
  /** Target agent name. */
  agent: string;
  instanceKey: string;
  source: { kind: "user" | "agent" | "connector" | "api" | "system"; name: string; instanceKey?: string };
  /** Present when the sender waits for a reply. `target` is the requesting instance address. */
  replyTo?: { target: InstanceAddress; correlationId: string };
  traceId: string;
  /** The caller's tool span, when delegated. */
  parentSpanId?: string;
  /** Agent names from the original caller to the sender, inclusive, for cycle and depth checks. */
  callChain: string[];
  /** Epoch ms after which a reply is dropped. */
  deadline?: number;
  metadata: JsonObject;
  createdAt: string;
}

/**
 * The type of the event that wakes an idle instance for results that arrived after its turn ended: its turn
 * adds no user message (the results are shown as usual before the first step), and it answers nobody.
 */
export const RESULTS_ARRIVED_EVENT = "results.arrived";

/** How often a child with a running turn says `heartbeat` (the Swarm's timeout is at least 2 s). */
export const HEARTBEAT_INTERVAL_MS = 500;

export interface TurnResultPayload {
  eventId: string;
  turnId: string;
  status: "ok" | "error";
  response: string;
  finishReason: string;
  error?: { code: string; message: string };
  /** Set when the event had `replyTo`: the orchestrator routes this back. */
  correlationId?: string;
}

export type RuntimeMethod = "request" | "send" | "spawn" | "list" | "catalog" | "restart";

export interface ParentToChild {
  /**
   * Deliver one event; `attempt` counts deliveries (1 = first). `crashedBefore` says how the child died with
   * this event in flight the last time ("it was killed by SIGSEGV"): the tool calls that were running then
   * are answered with `E_TOOL_INTERRUPTED` instead of being asked for again. Absent after a clean stop.
   */
  event: { event: AgentEvent; attempt: number; crashedBefore?: string };
  /** Answer to a `runtime_call`. */
  runtime_result: { callId: string; ok: boolean; value?: JsonValue; error?: { code: string; message: string } };
  /** A reply to a request this instance made (blocking or async). */
  delegate_result: {
    correlationId: string;
    status: "ok" | "error";
    agent: string;
    instanceKey: string;
    response?: string;
    finishReason?: string;
    error?: { code: string; message: string };
  };
  shutdown: { gracePeriodMs: number; reason: string };
  /** Connector children: what to run, with the Connection's resolved config and secrets (never in argv). */
  connector_start: ConnectorStartPayload;
  /** Connector children: an emitted event was durably accepted (or refused, with a reason). */
  connector_ack: { requestId: string; accepted: boolean; eventId?: string; error?: { code: string; message: string } };
  /** Connector children: the reply to an event emitted with `wantsReply`. */
  connector_reply: { requestId: string; eventId: string; status: "ok" | "error"; response: string; error?: { code: string; message: string } };
}

/** What a connector child runs: the entry module and the Connection's resolved values. */
export interface ConnectorStartPayload {
  connector: string;
  connection: string;
  /** Absolute path of `Connector.spec.entry`. */
  entry: string;
  config: JsonObject;
  secrets: Record<string, string>;
}

export interface ChildToParent {
  ready: { pid: number; agent: string; instanceKey: string };
  /** An event was taken off the queue and its turn started. */
  turn_started: { eventId: string; turnId: string };
  /** Exactly one per delivered event: the turn committed (ok or error). */
  turn_result: TurnResultPayload;
  /** `ctx.runtime.*` from a tool: request/send/spawn/list/catalog/restart. */
  runtime_call: { callId: string; method: RuntimeMethod; args: JsonObject; traceId?: string; parentSpanId?: string; callChain: string[] };
  shutdown_ack: { reason: string };
  /**
   * The idle child holds results its model has not seen (async replies, pending tool completions): it asks
   * for a turn. The orchestrator queues a `RESULTS_ARRIVED_EVENT` unless the instance has work already.
   */
  results_waiting: { count: number };
  /**
   * Sent every HEARTBEAT_INTERVAL_MS while a turn runs: its absence past the Swarm's
   * `lifecycle.heartbeatTimeoutSeconds` means the child's event loop is blocked, and it is killed.
   */
  heartbeat: { turnId?: string };
  /** A fatal start-up problem (bad bundle, missing model key): the child exits after sending it. */
  fatal: { code: string; message: string };
  /** Connector children: the entry module loaded and its start function was called. */
  connector_ready: { pid: number; connection: string };
  /** Connector children: `ctx.emit(event)`; `event` is untrusted until the orchestrator parses it. */
  connector_event: { requestId: string; event: JsonValue; wantsReply: boolean };
}

export type IpcType = keyof ParentToChild | keyof ChildToParent;

export interface IpcEnvelope<T extends string = string, P = unknown> {
  type: T;
  from: string;
  to: string;
  payload: P;
}

export type ParentMessage = { [K in keyof ParentToChild]: IpcEnvelope<K, ParentToChild[K]> }[keyof ParentToChild];
export type ChildMessage = { [K in keyof ChildToParent]: IpcEnvelope<K, ChildToParent[K]> }[keyof ChildToParent];

const PARENT_TYPES = new Set<string>(["event", "runtime_result", "delegate_result", "shutdown", "connector_start", "connector_ack", "connector_reply"]);
const CHILD_TYPES = new Set<string>(["ready", "turn_started", "turn_result", "runtime_call", "results_waiting", "heartbeat", "shutdown_ack", "fatal", "connector_ready", "connector_event"]);

function isEnvelope(value: unknown): value is IpcEnvelope {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.type === "string" && typeof record.from === "string" && typeof record.to === "string" && "payload" in record;
}

export function isParentMessage(value: unknown): value is ParentMessage {
  return isEnvelope(value) && PARENT_TYPES.has(value.type);
}

export function isChildMessage(value: unknown): value is ChildMessage {
  return isEnvelope(value) && CHILD_TYPES.has(value.type);
}

export function envelope<K extends keyof ParentToChild>(type: K, from: string, to: string, payload: ParentToChild[K]): IpcEnvelope<K, ParentToChild[K]>;
export function envelope<K extends keyof ChildToParent>(type: K, from: string, to: string, payload: ChildToParent[K]): IpcEnvelope<K, ChildToParent[K]>;
export function envelope(type: string, from: string, to: string, payload: unknown): IpcEnvelope {
  return { type, from, to, payload };
}

/** Command-line arguments of the agent entry script (`src/agent/entry.ts`). */
export interface AgentChildArgs {
  bundle: string;
  swarm: string;
  agent: string;
  instanceKey: string;
  stateRoot: string;
}

export function agentChildArgv(args: AgentChildArgs): string[] {
  return ["--bundle", args.bundle, "--swarm", args.swarm, "--agent", args.agent, "--instance-key", args.instanceKey, "--state-root", args.stateRoot];
}

export function parseAgentChildArgv(argv: readonly string[]): AgentChildArgs {
  const read = (flag: string): string => {
    const index = argv.indexOf(flag);
    const value = index >= 0 ? argv[index + 1] : undefined;
    if (value === undefined) throw new Error(`missing ${flag} argument`);
    return value;
  };
  return { bundle: read("--bundle"), swarm: read("--swarm"), agent: read("--agent"), instanceKey: read("--instance-key"), stateRoot: read("--state-root") };
}

/** Path of the agent child's entry script: the only agent file the orchestrator knows. */
export const AGENT_ENTRY_SCRIPT = new URL("../agent/entry.ts", import.meta.url).pathname;

/**
 * Optional env for the agent child: path of a JSON file holding the validated Bundle (`JSON.stringify(bundle)`,
 * written atomically by the orchestrator after it validated the bundle). With it the child skips re-reading and
 * re-validating the bundle directory (most of its start-up time) and runs exactly the config the orchestrator
 * validated. Without it the child loads `--bundle` itself.
 */
export const BUNDLE_SNAPSHOT_ENV = "GOONDAN_BUNDLE_SNAPSHOT";

/** Optional env for the agent child: append every model call to this cassette file (`goondan run --record`). */
export const RECORD_CASSETTE_ENV = "GOONDAN_RECORD_CASSETTE";
