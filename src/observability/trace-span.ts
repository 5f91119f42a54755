/**
 * One span of a trace as a reader wants it, built from the runtime events that carry its spanId: what kind of work it
 * was (a turn, a step, a model call, a tool call), who did it, when it started and ended, how it went, the tokens it
 * used, its errors and retries, and its inputs and outputs (a turn's input text and response, a model call's newest
 * prompt message and its answer, a tool call's args and result: redacted and bounded by the child that made them,
 * public-runtime-event.ts). `GET /v1/traces/:traceId/spans/:spanId` answers with it.
 */
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { ErrorInfo } from "../protocol/error-info.ts";
import type { JsonObject, JsonValue } from "../shared/json.ts";

export type TraceSpanKind = "turn" | "step" | "model" | "tool";

export interface TraceSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: TraceSpanKind;
  name: string;
  agent: string;
  instanceKey: string;
  node?: string;
  startedAt: string;
  endedAt?: string;
  durationMs?: number;
  /** `running` until an ending event arrives; `awaiting_approval` for a tool call held for a person. */
  status: "ok" | "error" | "running" | "awaiting_approval";
  usage?: { inputTokens: number; outputTokens: number };
  error?: ErrorInfo;
  retries: Array<{ attempt?: JsonValue; delayMs?: JsonValue; error?: ErrorInfo }>;
  inputs: JsonObject;
  outputs: JsonObject;
}

const KIND: Record<string, TraceSpanKind> = { turn: "turn", step: "step", model: "model", tool: "tool" };

function pick(data: JsonObject | undefined, names: readonly string[]): JsonObject {
  const picked: JsonObject = {};
  for (const name of names) if (data?.[name] !== undefined) picked[name] = data[name];
  return picked;
}

/** The span `spanId` of `events` (one trace's, oldest first), or undefined when no event carries it. */
export function traceSpan(
  events: ReadonlyArray<RuntimeEvent & { node?: string }>,
  spanId: string,
): TraceSpan | undefined {
  const own = events.filter((event) => event.spanId === spanId && KIND[event.type.split(".")[0] as string]);
  const first = own[0];
  if (first === undefined) return undefined;
  const kind = KIND[first.type.split(".")[0] as string] as TraceSpanKind;
  const end = own.find((event) => /\.(completed|failed)$/.test(event.type));
  const start = own.find((event) => /\.(started|called)$/.test(event.type));
  const held = events.some((event) => event.type === "approval.requested" && event.spanId === spanId);
  const endedMs = end === undefined ? undefined : Date.parse(end.at);
  const startedAt =
    start?.at ??
    (endedMs === undefined ? first.at : new Date(endedMs - Math.max(0, end?.durationMs ?? 0)).toISOString());
  const name =
    kind === "tool"
      ? `tool ${first.toolName ?? ""}`
      : kind === "model"
        ? `model ${String(end?.data?.model ?? "")}`
        : kind === "step"
          ? `step ${first.stepIndex ?? 0}`
          : `turn ${first.agent}`;
  const data = { ...start?.data, ...end?.data };
  const io: Record<TraceSpanKind, [string[], string[]]> = {
    turn: [
      ["eventType", "source", "input"],
      ["response", "finishReason", "steps"],
    ],
    step: [[], ["toolCalls"]],
    model: [["input"], ["output", "finishReason", "provider", "model", "timeToFirstTokenMs"]],
    tool: [["args"], ["result"]],
  };
  const [inputs, outputs] = io[kind];
  return {
    traceId: first.traceId,
    spanId,
    ...(first.parentSpanId === undefined ? {} : { parentSpanId: first.parentSpanId }),
    kind,
    name: name.trim(),
    agent: first.agent,
    instanceKey: first.instanceKey,
    ...(first.node === undefined ? {} : { node: first.node }),
    startedAt,
    ...(end === undefined ? {} : { endedAt: end.at }),
    ...(end?.durationMs === undefined ? {} : { durationMs: end.durationMs }),
    status:
      end === undefined ? (held ? "awaiting_approval" : "running") : end.type.endsWith(".failed") ? "error" : "ok",
    ...(end?.usage === undefined ? {} : { usage: end.usage }),
    ...(end?.error === undefined ? {} : { error: end.error }),
    retries: own
      .filter((event) => event.type === "model.retried")
      .map((event) => ({
        ...(event.data?.attempt === undefined ? {} : { attempt: event.data.attempt }),
        ...(event.data?.delayMs === undefined ? {} : { delayMs: event.data.delayMs }),
        ...(event.error === undefined ? {} : { error: event.error }),
      })),
    inputs: pick(data, inputs),
    outputs: pick(data, outputs),
  };
}
