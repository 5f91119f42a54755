/**
 * The IPC messages between the orchestrator and its Bun children (agents and connectors), carried over
 * `Bun.spawn` IPC with `serialization: "json"`. Envelope `{type, from, to, payload}`. Both sides import only
 * src/protocol, which keeps the process boundary real: the orchestrator never sees a child's internals.
 */
import type { JsonObject, JsonValue } from "../shared/json.ts";
import type { AgentEvent } from "./agent-event.ts";
import type { Approval } from "./approval.ts";
import type { ErrorInfo } from "./error-info.ts";
import type { Message, OlderMessagesQuery } from "./conversation.ts";
import type { InstanceCommit, InstanceState } from "./instance-state.ts";
import type { RuntimeEvent } from "./runtime-event.ts";
import type { Reply, TurnOutcome } from "./turn-outcome.ts";
import type { TurnProgress } from "./turn-progress.ts";

export const ORCHESTRATOR = "orchestrator";

/** How often a child with a running turn says `heartbeat` (the Swarm's timeout is at least 2 s). */
export const HEARTBEAT_INTERVAL_MS = 500;

/**
 * The exit code of an agent child that ends because the store refused its commit (a full disk, the cluster's log
 * unreachable; EX_TEMPFAIL): not a crash of its event, so the orchestrator neither counts it toward the poison limit
 * nor restarts it at once, but after a backoff (restart-policy.ts).
 */
export const STORE_FAULT_EXIT_CODE = 75;

/** `ctx.runtime.*` of a tool, and `model_permit` / `model_usage` around each model call (model-permit.ts). */
export type RuntimeMethod =
  | "request"
  | "send"
  | "spawn"
  | "list"
  | "catalog"
  | "restart"
  | "model_permit"
  | "model_usage";

export interface ParentToChild {
  /**
   * Deliver one event; `attempt` counts deliveries (1 = first). `crashedBefore` says how the child died with
   * this event in flight the last time ("it was killed by SIGSEGV"): the tool calls that were running then
   * are answered with `E_TOOL_INTERRUPTED` instead of being asked for again. Absent after a clean stop.
   * `redelivery` says the event was delivered before (also after an orchestrator restart, when attempts start over).
   * `approvals`: the event's turn stopped for these tool calls and every one is decided now: the turn resumes.
   */
  event: { event: AgentEvent; attempt: number; crashedBefore?: string; redelivery?: boolean; approvals?: Approval[] };
  /** Answer to a `runtime_call`. */
  runtime_result: { callId: string; ok: boolean; value?: JsonValue; error?: ErrorInfo };
  /** A reply to a request this instance made (blocking or async). */
  delegate_result: Reply;
  shutdown: { gracePeriodMs: number; reason: string };
  /**
   * Agent hosts (a process holding many instances of one agent): open the instance at the envelope's `to` address,
   * from the agent entry's argv (child-entry.ts). Its messages then go both ways under that address, as a child's do.
   */
  open: { argv: string[] };
  /** Agent hosts: drop the instance at `to` now (its turn aborted, nothing persisted): a forced kill of one instance. */
  kill: { reason: string };
  /** Agent children, first of all: the instance's durable state (conversation, pending results, extension state). */
  hydrate: InstanceState;
  /** Agent children: the commit with this `seq` is durable (or, with `error`, could not be made durable). */
  committed: { seq: number; error?: ErrorInfo };
  /** Agent children: the answer to `older_messages` (a page of the stored history, oldest first), or why not. */
  older_messages_result: { requestId: string; messages?: Message[]; error?: ErrorInfo };
  /** Connector children: what to run, with the Connection's resolved config and secrets (never in argv). */
  connector_start: ConnectorStartPayload;
  /** Connector children: an emitted event was durably accepted (or refused, with a reason). */
  connector_ack: { requestId: string; accepted: boolean; eventId?: string; error?: ErrorInfo };
  /** Connector children: the reply to an event emitted with `wantsReply`. */
  connector_reply: TurnOutcome & { requestId: string };
  /** Connector children: progress of the turn an event emitted with `wantsProgress` started (and its delegations). */
  connector_progress: { requestId: string; progress: TurnProgress };
  /** Connector children: the answer to `connector_approval` (the approval; after a decision, the resumed turn's outcome). */
  connector_approval_result: { requestId: string; approval?: Approval; outcome?: TurnOutcome; error?: ErrorInfo };
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
  /**
   * Exactly one per delivered event: the turn's outcome, with what the turn changed since its last commit; the
   * orchestrator makes both durable in one transaction, then routes the outcome.
   */
  turn_result: TurnOutcome & { commit?: InstanceCommit };
  /** Makes a part of a turn durable before the turn goes on (a step's tool calls before they run, extension state). */
  commit: InstanceCommit & { seq: number; sync?: false };
  /** Reads a page of the instance's stored history (`ctx.conversation.older()`); answered `older_messages_result`. */
  older_messages: OlderMessagesQuery & { requestId: string };
  /**
   * Text the running turn's model streamed since the last one (gathered for one tick, not acknowledged);
   * `restarted`: what was sent before for this event is void (the model call was retried) and `text` starts over.
   */
  turn_delta: { eventId: string; text: string; restarted?: boolean };
  /** Runtime events, in batches (not acknowledged). */
  runtime_events: { events: RuntimeEvent[] };
  /** `ctx.runtime.*` from a tool: request/send/spawn/list/catalog/restart. */
  runtime_call: {
    callId: string;
    method: RuntimeMethod;
    args: JsonObject;
    traceId?: string;
    parentSpanId?: string;
    callChain: string[];
  };
  shutdown_ack: { reason: string };
  /** Agent hosts: the instance at `from` is closed, as a child process that exited (`signal` "SIGKILL" after `kill`). */
  exited: { code: number | null; signal: string | null };
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
  fatal: ErrorInfo;
  /** Connector children: the entry module loaded and its start function was called. */
  connector_ready: { pid: number; connection: string };
  /** Connector children: `ctx.emit(event)`; `event` is untrusted until the orchestrator parses it. */
  connector_event: { requestId: string; event: JsonValue; wantsReply: boolean; wantsProgress?: boolean };
  /** Connector children: reads a held tool call's approval (`decision` absent) or decides it (a person answered a prompt). */
  connector_approval: { requestId: string; id: string; decision?: "approve" | "deny"; reason?: string };
}

export type IpcType = keyof ParentToChild | keyof ChildToParent;

export interface IpcEnvelope<T extends string = string, P = unknown> {
  type: T;
  from: string;
  to: string;
  payload: P;
  /**
   * Messages made before this one that ride with it, oldest first (a child's held `turn_started` and runtime
   * events): one write and one read instead of several. A receiver handles each, in order, before this one
   * (`childMessagesIn`).
   */
  ahead?: IpcEnvelope[];
}

export type ParentMessage = { [K in keyof ParentToChild]: IpcEnvelope<K, ParentToChild[K]> }[keyof ParentToChild];
export type ChildMessage = { [K in keyof ChildToParent]: IpcEnvelope<K, ChildToParent[K]> }[keyof ChildToParent];

const PARENT_TYPES = new Set<string>([
  "event",
  "runtime_result",
  "delegate_result",
  "shutdown",
  "open",
  "kill",
  "hydrate",
  "committed",
  "older_messages_result",
  "connector_start",
  "connector_ack",
  "connector_reply",
  "connector_progress",
  "connector_approval_result",
]);
const CHILD_TYPES = new Set<string>([
  "ready",
  "turn_started",
  "turn_result",
  "commit",
  "older_messages",
  "turn_delta",
  "runtime_events",
  "runtime_call",
  "results_waiting",
  "heartbeat",
  "shutdown_ack",
  "exited",
  "fatal",
  "connector_ready",
  "connector_event",
  "connector_approval",
]);

function isEnvelope(value: unknown): value is IpcEnvelope {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.type === "string" &&
    typeof record.from === "string" &&
    typeof record.to === "string" &&
    "payload" in record
  );
}

export function isParentMessage(value: unknown): value is ParentMessage {
  return isEnvelope(value) && PARENT_TYPES.has(value.type);
}

export function isChildMessage(value: unknown): value is ChildMessage {
  return isEnvelope(value) && CHILD_TYPES.has(value.type);
}

/**
 * What one IPC message from a child holds, in the order to handle it: the messages riding ahead of it, then itself
 * (without them). Each is checked as any child message is; what fails the check is returned in `invalid`.
 */
export function childMessagesIn(value: unknown): { messages: ChildMessage[]; invalid: unknown[] } {
  if (!isChildMessage(value)) return { messages: [], invalid: [value] };
  if (value.ahead === undefined) return { messages: [value], invalid: [] };
  const { ahead, ...last } = value;
  const messages: ChildMessage[] = [];
  const invalid: unknown[] = [];
  for (const each of Array.isArray(ahead) ? ahead : [ahead]) {
    if (isChildMessage(each) && each.ahead === undefined) messages.push(each);
    else invalid.push(each);
  }
  messages.push(last as ChildMessage);
  return { messages, invalid };
}

export function envelope<K extends keyof ParentToChild>(
  type: K,
  from: string,
  to: string,
  payload: ParentToChild[K],
): IpcEnvelope<K, ParentToChild[K]>;
export function envelope<K extends keyof ChildToParent>(
  type: K,
  from: string,
  to: string,
  payload: ChildToParent[K],
): IpcEnvelope<K, ChildToParent[K]>;
export function envelope(type: string, from: string, to: string, payload: unknown): IpcEnvelope {
  return { type, from, to, payload };
}
