/**
 * Runtime events as OpenTelemetry spans: each ended unit of work (`turn.*`, `step.*`, `model.*`, `tool.*` with its
 * duration) becomes one finished span carrying the ids goondan already gave it (traceId, spanId, parentSpanId), so
 * the parent links the agent children made stay the links in the trace, across processes. Turns are GenAI
 * `invoke_agent` spans, model calls `chat` spans (provider, model, token usage, finish reason), tool calls
 * `execute_tool` spans, and a tool call to another agent (`agents__*`) is marked as an agent request. Only types are
 * imported from OpenTelemetry here: the resource each span carries is handed in by the exporter (trace-export.ts).
 */
import type { Attributes, HrTime, SpanContext } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";

/** SpanKind and SpanStatusCode of @opentelemetry/api, as numbers (its enums are runtime values). */
const KIND_INTERNAL = 0;
const KIND_CLIENT = 2;
const STATUS_OK = 1;
const STATUS_ERROR = 2;
const TRACE_FLAG_SAMPLED = 1;

export const INSTRUMENTATION_SCOPE = { name: "goondan" } as const;

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

function context(traceId: string, spanId: string, isRemote = false): SpanContext {
  return { traceId, spanId, traceFlags: TRACE_FLAG_SAMPLED, ...(isRemote ? { isRemote } : {}) };
}

function dataString(event: RuntimeEvent, name: string): string | undefined {
  const value = event.data?.[name];
  return typeof value === "string" ? value : undefined;
}

function dataNumber(event: RuntimeEvent, name: string): number | undefined {
  const value = event.data?.[name];
  return typeof value === "number" ? value : undefined;
}

/** Drops the attributes that have no value. */
function defined(attributes: Record<string, string | number | boolean | string[] | undefined>): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined)) as Attributes;
}

/** The span's name, kind and attributes, or undefined for an event that does not end a span. */
function shape(event: RuntimeEvent): { name: string; kind: number; attributes: Attributes } | undefined {
  const common = {
    "goondan.agent": event.agent,
    "goondan.instance_key": event.instanceKey,
    "goondan.turn_id": event.turnId,
    "goondan.event_id": event.eventId,
  };
  switch (event.type) {
    case "turn.completed":
    case "turn.failed":
      return {
        name: `invoke_agent ${event.agent}`,
        kind: KIND_INTERNAL,
        attributes: defined({
          ...common,
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": event.agent,
          "gen_ai.usage.input_tokens": event.usage?.inputTokens,
          "gen_ai.usage.output_tokens": event.usage?.outputTokens,
          "goondan.steps": dataNumber(event, "steps"),
          "goondan.finish_reason": dataString(event, "finishReason"),
        }),
      };
    case "step.completed":
    case "step.failed":
      return {
        name: `step ${event.stepIndex ?? 0}`,
        kind: KIND_INTERNAL,
        attributes: defined({
          ...common,
          "goondan.step_index": event.stepIndex,
          "goondan.tool_calls": dataNumber(event, "toolCalls"),
        }),
      };
    case "model.completed":
    case "model.failed": {
      const provider = dataString(event, "provider");
      const model = dataString(event, "model");
      const finishReason = dataString(event, "finishReason");
      return {
        name: `chat ${model ?? "model"}`,
        kind: KIND_CLIENT,
        attributes: defined({
          ...common,
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": provider,
          "gen_ai.system": provider,
          "gen_ai.request.model": model,
          "gen_ai.usage.input_tokens": event.usage?.inputTokens,
          "gen_ai.usage.output_tokens": event.usage?.outputTokens,
          "gen_ai.response.finish_reasons": finishReason === undefined ? undefined : [finishReason],
          "goondan.step_index": event.stepIndex,
          "goondan.time_to_first_token_ms": dataNumber(event, "timeToFirstTokenMs"),
        }),
      };
    }
    case "tool.completed":
    case "tool.failed": {
      const tool = event.toolName ?? "tool";
      return {
        name: `execute_tool ${tool}`,
        kind: KIND_INTERNAL,
        attributes: defined({
          ...common,
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": tool,
          "gen_ai.tool.call.id": event.toolCallId,
          "goondan.step_index": event.stepIndex,
          "goondan.agent_request": tool.startsWith("agents__") ? true : undefined,
        }),
      };
    }
    default:
      return undefined;
  }
}

/** The finished span `event` ends, with `resource` (the process it ran in); undefined for other events. */
export function spanOfRuntimeEvent(event: RuntimeEvent, resource: Resource): ReadableSpan | undefined {
  const about = shape(event);
  if (about === undefined) return undefined;
  const endMs = Date.parse(event.at);
  const durationMs = Math.max(0, event.durationMs ?? 0);
  const failed = event.type.endsWith(".failed");
  const own = context(event.traceId, event.spanId);
  // A turn's parent is the request that asked for it: another process's span.
  const parent =
    event.parentSpanId === undefined
      ? undefined
      : context(event.traceId, event.parentSpanId, event.type.startsWith("turn."));
  return {
    name: about.name,
    kind: about.kind,
    spanContext: () => own,
    ...(parent ? { parentSpanContext: parent } : {}),
    startTime: hrTime(endMs - durationMs),
    endTime: hrTime(endMs),
    duration: hrTime(durationMs),
    status: failed
      ? {
          code: STATUS_ERROR,
          ...(event.error ? { message: `${event.error.code}: ${event.error.message}`.slice(0, 500) } : {}),
        }
      : { code: STATUS_OK },
    attributes: failed && event.error ? { ...about.attributes, "error.type": event.error.code } : about.attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: INSTRUMENTATION_SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
