/**
 * What a case's report keeps of its run so the studio can show its thread and trace after the case's daemon is
 * gone: every instance's conversation and the run's runtime events (the spans of its traces). Runtime events leave
 * the agent child already redacted and bounded (public-runtime-event.ts); the conversations are read from the store
 * as the models wrote them, so each message here gets the same treatment: the values of the bundle's secrets
 * redacted, and each tool call's arguments and each tool result bounded to MAX_DATA_FIELD_BYTES of JSON. At most
 * MAX_CASE_MESSAGES messages per instance and MAX_CASE_EVENTS events are kept, the first ones (where a trace begins).
 */
import type { Bundle } from "../config/types.ts";
import { selectSwarm } from "../config/resolve.ts";
import { requiredEnv, type Env } from "../config/value-source.ts";
import type { Message } from "../protocol/conversation.ts";
import { boundedValue } from "../protocol/public-runtime-event.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../shared/json.ts";
import { MIN_SECRET_LENGTH, redactJson } from "../shared/redact-secrets.ts";

export const MAX_CASE_MESSAGES = 200;
export const MAX_CASE_EVENTS = 1000;

/** One instance's conversation, oldest message first. */
export interface CaseThread {
  agent: string;
  instanceKey: string;
  messages: Message[];
  /** Set when messages were left out (the count the instance had). */
  totalMessages?: number;
}

export interface CaseRecord {
  threads: CaseThread[];
  events: RuntimeEvent[];
  /** Set when events were left out (the count the run had). */
  totalEvents?: number;
}

/** The values of every env var the swarm's resources name (its models' keys, its tools' and extensions' config). */
export function swarmSecrets(bundle: Bundle, swarm: string, env: Env): string[] {
  const names = new Set(requiredEnv(bundle, selectSwarm(bundle, swarm)).map((entry) => entry.name));
  return [...names].map((name) => env[name] ?? "").filter((value) => value.length >= MIN_SECRET_LENGTH);
}

export function caseRecord(options: { threads: CaseThread[]; events: RuntimeEvent[]; secrets: string[] }): CaseRecord {
  const { events, secrets } = options;
  return {
    threads: options.threads.map((thread) => ({
      agent: thread.agent,
      instanceKey: thread.instanceKey,
      messages: thread.messages.slice(0, MAX_CASE_MESSAGES).map((message) => publicMessage(message, secrets)),
      ...(thread.messages.length > MAX_CASE_MESSAGES ? { totalMessages: thread.messages.length } : {}),
    })),
    events: events.slice(0, MAX_CASE_EVENTS),
    ...(events.length > MAX_CASE_EVENTS ? { totalEvents: events.length } : {}),
  };
}

function publicMessage(message: Message, secrets: string[]): Message {
  const data = redactJson(message.data as unknown as JsonValue, secrets) as JsonObject;
  const content = Array.isArray(data.content) ? data.content.map(boundedPart) : data.content;
  return { ...message, data: { ...data, content } as unknown as Message["data"] };
}

/** A tool call's `input` and a tool result's `output` (its `value` when typed) bounded; other parts as they are. */
function boundedPart(part: JsonValue): JsonValue {
  if (!isJsonObject(part)) return part;
  if (part.type === "tool-call" && part.input !== undefined) return { ...part, input: boundedValue(part.input) };
  if (part.type !== "tool-result" || part.output === undefined) return part;
  const output = part.output;
  return {
    ...part,
    output:
      isJsonObject(output) && "value" in output
        ? { ...output, value: boundedValue(output.value ?? null) }
        : boundedValue(output),
  };
}
