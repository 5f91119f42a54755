/**
 * What `POST /v1/ag-ui` takes: AG-UI's RunAgentInput, checked against one JSON Schema like every route's body
 * (request-schema.ts). `threadId` is the instance key; the event's input is the last user message (the instance
 * remembers the thread, so earlier messages are not sent again); front-end `tools`, `context` and `state` are taken
 * and not used. `resume` answers the interrupts of an earlier run: each `interruptId` is an approval id, and its
 * decision reads `status: "cancelled"` or a payload `{approved: false}` (or `{decision: "deny"}`) as deny, anything
 * else resolved as approve; the payload's `reason` goes with it.
 */
import type { JsonObject } from "../../shared/json.ts";
import { ApiError } from "../api-error.ts";
import { INSTANCE_KEY_SCHEMA, MAX_REASON_LENGTH, requestSchema } from "../request-schema.ts";

export interface AgUiResumeEntry {
  interruptId: string;
  status: "resolved" | "cancelled";
  payload?: unknown;
}

export interface AgUiMessage {
  id?: string;
  role: string;
  content?: unknown;
}

export interface AgUiInput {
  threadId: string;
  runId: string;
  messages: AgUiMessage[];
  resume?: AgUiResumeEntry[];
}

const ANY = {};

export const AG_UI_INPUT_SCHEMA: JsonObject = {
  type: "object",
  required: ["threadId", "runId", "messages"],
  additionalProperties: false,
  properties: {
    threadId: INSTANCE_KEY_SCHEMA,
    runId: { type: "string", minLength: 1, maxLength: 200 },
    protocolVersion: { type: "string" },
    parentRunId: { type: "string" },
    messages: {
      type: "array",
      items: { type: "object", required: ["role"], properties: { id: { type: "string" }, role: { type: "string" } } },
    },
    resume: {
      type: "array",
      items: {
        type: "object",
        required: ["interruptId", "status"],
        properties: {
          interruptId: { type: "string", minLength: 1, maxLength: 200 },
          status: { enum: ["resolved", "cancelled"] },
        },
      },
    },
    tools: { type: "array" },
    context: { type: "array" },
    state: ANY,
    forwardedProps: ANY,
  },
};

export const checkAgUiInput = requestSchema<AgUiInput>({
  route: "POST /v1/ag-ui",
  part: "body",
  schema: AG_UI_INPUT_SCHEMA,
});

/** The text of an AG-UI message's content: a string, or its text parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part !== null && typeof part === "object" && "text" in part ? String(part.text) : ""))
    .join("");
}

/** The last user message's text; `400 E_AG_UI_NO_USER_MESSAGE` when a run without `resume` has none. */
export function runInputText(input: AgUiInput): string {
  const last = input.messages.findLast((message) => message.role === "user");
  const text = last === undefined ? "" : contentText(last.content);
  if (text.trim() === "")
    throw new ApiError({
      status: 400,
      code: "E_AG_UI_NO_USER_MESSAGE",
      message: "POST /v1/ag-ui: expected a user message with text in messages (or resume entries)",
    });
  return text;
}

/** The approval decision a resume entry asks for. */
export function resumeDecision(entry: AgUiResumeEntry): { decision: "approve" | "deny"; reason?: string } {
  const payload = (entry.payload ?? {}) as { approved?: unknown; decision?: unknown; reason?: unknown };
  const denied = entry.status === "cancelled" || payload.approved === false || payload.decision === "deny";
  const reason =
    typeof payload.reason === "string" && payload.reason !== ""
      ? payload.reason.slice(0, MAX_REASON_LENGTH)
      : undefined;
  return { decision: denied ? "deny" : "approve", ...(reason === undefined ? {} : { reason }) };
}
