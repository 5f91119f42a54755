/**
 * Built-in `agents`: inter-agent calls through `ctx.runtime` (request, send, schedule, spawn, list, catalog);
 * `schedule` is a send delivered at a time, kept in the target's inbox until then (AgentEvent.notBefore).
 * `request` with `async: true` returns a pending handle (the correlationId); an error reply from the
 * runtime (E_AGENT_REQUEST_TIMEOUT, E_CIRCULAR_CALL_DETECTED, …) becomes a structured error result. The public
 * Goondan tool's `eventType` and `metadata` (request, send), `cwd` (spawn) and `includeAll` (list) are
 * handed to the runtime as they are; what they do is the orchestrator's business. Results are a superset of
 * the public tool's: `request` also answers `{target, eventId, correlationId, accepted, async, response}`, and
 * `catalog` also lists `availableAgents` and `callableAgents` (every agent but the caller) with their counts.
 */
import type { JsonObject } from "../../shared/json.ts";
import { pending } from "../../tools/pending.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import { isJsonObject } from "../../shared/json.ts";
import type { AgentReply, AgentRequestOptions, ToolHandler } from "../../tools/types.ts";

function target(input: JsonObject): { target: string; instanceKey?: string } {
  return {
    target: String(input.target),
    ...(typeof input.instanceKey === "string" ? { instanceKey: input.instanceKey } : {}),
  };
}

/** The event the target receives: its type and metadata, when the call sets them. */
function eventOptions(input: JsonObject): Pick<AgentRequestOptions, "eventType" | "metadata"> {
  return {
    ...(typeof input.eventType === "string" && input.eventType !== "" ? { eventType: input.eventType } : {}),
    ...(isJsonObject(input.metadata) ? { metadata: input.metadata } : {}),
  };
}

/** Longer than a year is a mistake, not a plan. */
const MAX_SCHEDULE_MS = 366 * 86_400_000;

/** When a scheduled send is due: `at` (ISO) or `delaySeconds` from now, within a year. */
function dueTime(input: JsonObject): number {
  const now = Date.now();
  const due =
    typeof input.at === "string"
      ? Date.parse(input.at)
      : typeof input.delaySeconds === "number"
        ? now + input.delaySeconds * 1000
        : Number.NaN;
  if (
    !Number.isFinite(due) ||
    due - now > MAX_SCHEDULE_MS ||
    (typeof input.delaySeconds === "number" && input.delaySeconds < 0)
  )
    throw new ToolFault(
      "E_SCHEDULE_TIME_INVALID",
      `expected at (an ISO time within a year) or delaySeconds (0 to a year), got ${JSON.stringify(input.at ?? input.delaySeconds ?? null)}`,
      { suggestion: 'e.g. {"delaySeconds": 259200} for three days, or {"at": "2027-01-04T09:00:00Z"}' },
    );
  return due;
}

export const handlers: Record<string, ToolHandler> = {
  request: async (ctx, input) => {
    const options: AgentRequestOptions = {
      ...target(input),
      input: String(input.input),
      ...(typeof input.timeoutMs === "number"
        ? { timeoutMs: Math.min(3_600_000, Math.max(1000, Math.floor(input.timeoutMs))) }
        : {}),
      ...eventOptions(input),
    };
    if (input.async === true) {
      const accepted = await ctx.runtime.request({ ...options, async: true });
      return pending(accepted.correlationId, {
        target: options.target,
        correlationId: accepted.correlationId,
        status: "accepted",
        accepted: true,
        async: true,
        response: null,
      });
    }
    const reply: AgentReply = await ctx.runtime.request({ ...options, async: false });
    if (reply.status === "error") {
      const code = reply.error?.code ?? "E_AGENT_REQUEST_FAILED";
      throw new ToolFault(
        code,
        `${reply.agent || options.target} could not answer: ${reply.error?.message ?? "no reason given"}`,
        {
          suggestion: suggestionFor(code),
        },
      );
    }
    return {
      target: options.target,
      agent: reply.agent,
      instanceKey: reply.instanceKey,
      eventId: reply.eventId,
      correlationId: reply.correlationId,
      accepted: true,
      async: false,
      response: reply.response ?? "",
      ...(reply.finishReason === undefined ? {} : { finishReason: reply.finishReason }),
    };
  },
  send: async (ctx, input) => {
    const result = await ctx.runtime.send({ ...target(input), input: String(input.input), ...eventOptions(input) });
    return { eventId: result.eventId, status: "sent" };
  },
  schedule: async (ctx, input) => {
    const notBefore = dueTime(input);
    const result = await ctx.runtime.send({
      ...target(input),
      input: String(input.input),
      ...eventOptions(input),
      notBefore,
    });
    return { eventId: result.eventId, status: "scheduled", at: new Date(notBefore).toISOString() };
  },
  spawn: async (ctx, input) => {
    const info = await ctx.runtime.spawn({
      ...target(input),
      ...(typeof input.cwd === "string" && input.cwd !== "" ? { cwd: input.cwd } : {}),
    });
    return {
      agent: info.agent,
      instanceKey: info.instanceKey,
      status: info.status,
      ...(info.pid === undefined ? {} : { pid: info.pid }),
    };
  },
  list: async (ctx, input) => {
    const { instances } = await ctx.runtime.list(input.includeAll === true ? { includeAll: true } : {});
    return {
      instances: instances.map((info) => ({
        agent: info.agent,
        instanceKey: info.instanceKey,
        status: info.status,
        ...(info.pid === undefined ? {} : { pid: info.pid }),
      })),
    };
  },
  catalog: async (ctx) => {
    const { agents } = await ctx.runtime.catalog();
    const available = agents.map((agent) => agent.name);
    const callable = available.filter((name) => name !== ctx.agentName);
    const entryAgent = agents.find((agent) => agent.entry)?.name;
    return {
      agents: agents.map((agent) => ({
        name: agent.name,
        entry: agent.entry,
        ...(agent.description === undefined ? {} : { description: agent.description }),
      })),
      selfAgent: ctx.agentName,
      ...(entryAgent === undefined ? {} : { entryAgent }),
      availableCount: available.length,
      callableCount: callable.length,
      availableAgents: available,
      callableAgents: callable,
    };
  },
};

function suggestionFor(code: string): string | undefined {
  switch (code) {
    case "E_AGENT_REQUEST_TIMEOUT":
      return "Retry with a larger timeoutMs, a smaller request, or async: true.";
    case "E_CIRCULAR_CALL_DETECTED":
      return "That agent is already waiting on this call chain; answer with what you have instead of asking it.";
    case "E_DELEGATION_DEPTH_EXCEEDED":
      return "The delegation chain is too deep; finish the task here or answer your caller.";
    case "E_AGENT_NOT_FOUND":
      return "Call agents__catalog to see the agents of this swarm.";
    default:
      return undefined;
  }
}
