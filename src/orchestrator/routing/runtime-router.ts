/**
 * The router for `runtime_call`s from children (`ctx.runtime.*`): request, send, spawn, list, catalog and
 * restart. A request is checked against the call chain (membership, cycles, depth), durably accepted into
 * the callee's inbox, registered as pending under its correlationId and the requesting instance, and
 * acknowledged; the callee's turn_result later comes back as a `delegate_result` to exactly that instance.
 * Refusals are structured `runtime_result` errors, answered at once.
 */
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { isJsonObject } from "../../shared/json.ts";
import { describe, isGoondanError, UsageError } from "../../shared/errors.ts";
import { newTraceId, type IdGenerator } from "../../shared/ids.ts";
import type { Clock } from "../../shared/clock.ts";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { ChildToParent, ParentToChild } from "../../protocol/ipc-messages.ts";
import { checkDelegation } from "./call-chain.ts";
import type { PendingRequests } from "./pending-requests.ts";
import { syncPolicyFor, type SyncPolicy } from "../instances/durable-inbox.ts";
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
  /** Accepts the event into its instance's inbox, as durable as `sync` says, and queues it. */
  accept(event: AgentEvent, sync: SyncPolicy): void;
  spawn(agent: string, instanceKey: string): JsonObject;
  list(): JsonObject[];
  restart(options: { reason: string; requester: RouterRequester }): Promise<RestartAnswer>;
}

const stringArg = (args: JsonObject, name: string, required: boolean): string | undefined => {
  const value = args[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || value === "") throw new UsageError("E_RUNTIME_INVALID_ARGS", `expected ${name} to be a non-empty string, got ${JSON.stringify(value ?? null)}`);
  return value;
};

export async function handleRuntimeCall(options: { host: RouterHost; requester: RouterRequester; call: ChildToParent["runtime_call"] }): Promise<void> {
  const { host, requester, call } = options;
  try {
    const value = await dispatch(host, requester, call);
    requester.runtimeResult({ callId: call.callId, ok: true, value });
  } catch (error) {
    const code = isGoondanError(error) ? error.code : "E_RUNTIME_INTERNAL";
    requester.runtimeResult({ callId: call.callId, ok: false, error: { code, message: describe(error).message } });
  }
}

async function dispatch(host: RouterHost, requester: RouterRequester, call: ChildToParent["runtime_call"]): Promise<JsonValue> {
  const args = isJsonObject(call.args) ? call.args : {};
  const swarm = host.swarm();
  switch (call.method) {
    case "request":
    case "send":
      return delegate(host, requester, call, args, call.method);
    case "spawn": {
      const target = stringArg(args, "target", true) as string;
      if (!swarm.agents.has(target)) throw new UsageError("AGENT_NOT_FOUND", `agent ${JSON.stringify(target)} is not in the swarm`);
      return host.spawn(target, stringArg(args, "instanceKey", false) ?? swarm.instanceKey);
    }
    case "list":
      return { instances: host.list() };
    case "catalog":
      return {
        agents: [...swarm.agents.values()].map((agent) => ({ name: agent.name, ...(agent.description ? { description: agent.description } : {}), entry: agent.name === swarm.entryAgent })),
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

function delegate(host: RouterHost, requester: RouterRequester, call: ChildToParent["runtime_call"], args: JsonObject, method: "request" | "send"): JsonValue {
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
  const now = host.clock.now();
  const eventId = host.ids("evt");
  const event: AgentEvent = {
    id: eventId,
    type: method === "request" ? "agent.request" : "agent.send",
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
    host.accept(event, syncPolicyFor({ event, requesterWaits: false }));
    return { eventId };
  }
  const timeoutMs = typeof args.timeoutMs === "number" && args.timeoutMs > 0 ? args.timeoutMs : swarm.policy.requestTimeoutMs;
  const correlationId = typeof args.correlationId === "string" && args.correlationId !== "" ? args.correlationId : host.ids("corr");
  event.replyTo = { target: requester.address, correlationId };
  event.deadline = now + timeoutMs;
  host.accept(event, syncPolicyFor({ event, requesterWaits: args.async !== true }));
  host.pending.add({ correlationId, requester: requester.address, agent: target, instanceKey, eventId, deadline: event.deadline, blocking: args.async !== true });
  return { correlationId, eventId };
}
