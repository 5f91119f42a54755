/**
 * The router for `runtime_call`s from children (`ctx.runtime.*`): request, send, spawn, list, catalog and
 * restart. A request is checked against the call chain (membership, cycles, depth), durably accepted into
 * the callee's inbox, registered as pending under its correlationId and the requesting instance, and
 * acknowledged; the callee's turn_result later comes back as a `delegate_result` to exactly that instance.
 * A request or send names a correlationId derived from its tool call, and its event id is derived from that: the
 * same call run again after a crash or restart finds its event already accepted and reattaches (a request answered
 * meanwhile is replied to from the store) instead of sending it twice. Refusals are structured `runtime_result`
 * errors, answered at once.
 */
import type { WriteOptions } from "../../store/store.ts";
import { storedWrite } from "../../store/stored-write.ts";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { isJsonObject } from "../../shared/json.ts";
import { describe, isGoondanError, UsageError } from "../../shared/errors.ts";
import { newTraceId, type IdGenerator } from "../../shared/ids.ts";
import type { Clock } from "../../shared/clock.ts";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import { checkDelegation } from "./call-chain.ts";
import type { PendingRequest, PendingRequests } from "./pending-requests.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { createHash } from "node:crypto";
import type { SwarmView } from "../swarm-view.ts";
import type { RestartAnswer } from "../../protocol/restart-answer.ts";

/** The instance that made the call (an Instance). */
export interface RouterRequester {
  readonly agent: string;
  readonly instanceKey: string;
  readonly address: string;
  /** The event of the turn that made the call, when there is one. */
  readonly inFlight: { event: AgentEvent } | undefined;
  runtimeResult(result: ParentToChild["runtime_result"]): void;
}

export interface RouterHost {
  swarm(): SwarmView;
  clock: Clock;
  ids: IdGenerator;
  pending: PendingRequests;
  /** Accepts the event into its instance's inbox and queues it; resolves once durable. */
  accept(event: AgentEvent, options?: WriteOptions): Promise<void>;
  /** The store is ordered (Store.ordered): an accepted event is written at once and synced in order. */
  ordered: boolean;
  /** An event accepted before, with its outcome once answered (a reattached request or send). */
  accepted(eventId: string): Promise<{ event: AgentEvent; outcome?: TurnOutcome } | undefined>;
  /** Replies to a reattached request that was answered meanwhile. */
  replyFromStore(request: PendingRequest, outcome: TurnOutcome): void;
  spawn(agent: string, instanceKey: string): JsonObject;
  list(): JsonObject[];
  restart(options: { reason: string; requester: RouterRequester }): Promise<RestartAnswer>;
}

const stringArg = (args: JsonObject, name: string, required: boolean): string | undefined => {
  const value = args[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || value === "")
    throw new UsageError(
      "E_RUNTIME_INVALID_ARGS",
      `expected ${name} to be a non-empty string, got ${JSON.stringify(value ?? null)}`,
    );
  return value;
};

export async function handleRuntimeCall(options: {
  host: RouterHost;
  requester: RouterRequester;
  call: ChildToParent["runtime_call"];
}): Promise<void> {
  const { host, requester, call } = options;
  try {
    const value = await dispatch(host, requester, call);
    requester.runtimeResult({ callId: call.callId, ok: true, value });
  } catch (error) {
    const code = isGoondanError(error) ? error.code : "E_RUNTIME_INTERNAL";
    requester.runtimeResult({ callId: call.callId, ok: false, error: { code, message: describe(error).message } });
  }
}

async function dispatch(
  host: RouterHost,
  requester: RouterRequester,
  call: ChildToParent["runtime_call"],
): Promise<JsonValue> {
  const args = isJsonObject(call.args) ? call.args : {};
  const swarm = host.swarm();
  switch (call.method) {
    case "request":
    case "send":
      return delegate(host, requester, call, args, call.method);
    case "spawn": {
      const target = stringArg(args, "target", true) as string;
      if (!swarm.agents.has(target))
        throw new UsageError("E_AGENT_NOT_FOUND", `agent ${JSON.stringify(target)} is not in the swarm`);
      return host.spawn(target, stringArg(args, "instanceKey", false) ?? swarm.instanceKey);
    }
    case "list":
      return { instances: host.list() };
    case "catalog":
      return {
        agents: [...swarm.agents.values()].map((agent) => ({
          name: agent.name,
          ...(agent.description ? { description: agent.description } : {}),
          entry: agent.name === swarm.entryAgent,
        })),
      };
    case "restart": {
      const reason = typeof args.reason === "string" && args.reason !== "" ? args.reason : "self-restart";
      const answer = await host.restart({ reason, requester });
      return { accepted: answer.accepted, issues: answer.issues };
    }
    default:
      throw new UsageError("E_RUNTIME_UNKNOWN_METHOD", `unknown runtime method ${JSON.stringify(call.method)}`);
  }
}

async function delegate(
  host: RouterHost,
  requester: RouterRequester,
  call: ChildToParent["runtime_call"],
  args: JsonObject,
  method: "request" | "send",
): Promise<JsonValue> {
  const swarm = host.swarm();
  const target = stringArg(args, "target", true) as string;
  const input = typeof args.input === "string" ? args.input : JSON.stringify(args.input ?? "");
  const instanceKey = stringArg(args, "instanceKey", false) ?? swarm.instanceKey;
  const current = requester.inFlight?.event;
  const check = checkDelegation({
    callChain: call.callChain.length > 0 ? call.callChain : (current?.callChain ?? []),
    requester: requester.agent,
    target,
    members: swarm.agents,
    maxDepth: swarm.policy.maxDelegationDepth,
    checkCycle: method === "request",
  });
  if (!check.ok) throw new UsageError(check.code, check.message);
  const given = typeof args.correlationId === "string" && args.correlationId !== "" ? args.correlationId : undefined;
  const correlationId = given ?? host.ids("corr");
  const eventId = given === undefined ? host.ids("evt") : derivedEventId(requester.address, correlationId);
  const timeoutMs =
    typeof args.timeoutMs === "number" && args.timeoutMs > 0 ? args.timeoutMs : swarm.policy.requestTimeoutMs;
  const blocking = args.async !== true;
  const before = await host.accepted(eventId);
  if (before !== undefined) {
    if (method === "request" && before.event.replyTo !== undefined) {
      const request: PendingRequest = {
        correlationId,
        requester: requester.address,
        agent: target,
        instanceKey,
        eventId,
        deadline: before.event.deadline ?? host.clock.now() + timeoutMs,
        blocking,
      };
      // A turn that stopped for approvals has not answered yet: its reply comes when it resumes and ends.
      if (before.outcome === undefined || before.outcome.status === "awaiting_approval") host.pending.add(request);
      // After the runtime_result: the tool learns its request is accepted before it gets the reply.
      else setImmediate(() => host.replyFromStore(request, before.outcome as TurnOutcome));
    }
    return method === "request" ? { correlationId, eventId } : { eventId };
  }
  const now = host.clock.now();
  const event: AgentEvent = {
    id: eventId,
    type:
      typeof args.eventType === "string" && args.eventType !== ""
        ? args.eventType
        : method === "request"
          ? "agent.request"
          : "agent.send",
    input,
    agent: target,
    instanceKey,
    source: { kind: "agent", name: requester.agent, instanceKey: requester.instanceKey },
    traceId: call.traceId ?? current?.traceId ?? newTraceId(),
    ...(call.parentSpanId ? { parentSpanId: call.parentSpanId } : {}),
    callChain: check.chain,
    metadata: isJsonObject(args.metadata) ? args.metadata : {},
    createdAt: new Date(now).toISOString(),
  };
  if (method === "send") {
    if (typeof args.notBefore === "number" && Number.isFinite(args.notBefore)) event.notBefore = args.notBefore;
    await acceptFromAgent(host, event);
    return { eventId };
  }
  event.replyTo = { target: requester.address, correlationId, ...(blocking ? {} : { async: true as const }) };
  event.deadline = now + timeoutMs;
  host.pending.add({
    correlationId,
    requester: requester.address,
    agent: target,
    instanceKey,
    eventId,
    deadline: event.deadline,
    blocking,
  });
  await acceptFromAgent(host, event);
  return { correlationId, eventId };
}

/**
 * An event an agent sends needs no sync before it is acknowledged: the requesting step is durable already, and a
 * requester that comes back after a crash runs the call again with the same ids, which accepts it again if it was
 * lost. It is acknowledged once stored (on an ordered store committed, and synced with whatever comes next;
 * otherwise durable); an insert the store refuses fails the call (E_STORE_UNAVAILABLE), and nothing of it runs.
 */
async function acceptFromAgent(host: RouterHost, event: AgentEvent): Promise<void> {
  const { committed, durable } = storedWrite((options) => host.accept(event, options), { sync: false });
  durable.catch(() => undefined);
  await committed;
}

/** The event id of a request or send named by a stable correlationId: the same for the same call. */
function derivedEventId(requester: string, correlationId: string): string {
  return `evt_${createHash("sha256").update(`${requester}\n${correlationId}`).digest("hex").slice(0, 24)}`;
}
