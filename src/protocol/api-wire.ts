/**
 * The HTTP API's answers as they read on the wire, for the routes that write them and the typed client that reads them
 * (src/client/): the accepted event of `POST /v1/events`, the messages of its `"stream": true` answer (and of a
 * streamed approval decision), an approval as `GET /v1/approvals` shows it, `GET /v1/events/:eventId`'s state, and
 * the API's error body. One shape each, so a change to a route is a type error in the client.
 */
import type { JsonObject, JsonValue } from "../shared/json.ts";
import type { ApprovalDecisionKind } from "./approval.ts";
import type { TurnOutcome } from "./turn-outcome.ts";

/** `202` of `POST /v1/events`: the event is durably accepted. */
export interface EventAccepted {
  eventId: string;
  agent: string;
  instanceKey: string;
}

/** `GET /v1/events/:eventId`: `accepted` until a child runs its turn, `running` while one does, then the outcome. */
export type EventState =
  | { eventId: string; state: "accepted" | "running" }
  | ({ eventId: string; state: TurnOutcome["status"] } & TurnOutcome);

/** `event: tool` of a streamed answer: a tool call of the turn or of a turn it delegated to, starting or ended. */
export interface ToolMessage {
  phase: "started" | "ended";
  agent: string;
  instanceKey: string;
  name: string;
  callId: string;
  args?: JsonValue;
  status?: "ok" | "error";
  code?: string;
  durationMs?: number;
  result?: JsonValue;
}

/** The messages of a streamed answer, by their SSE event name. */
export interface EventStreamMessages {
  delta: { text: string };
  tool: ToolMessage;
  restarted: { reason: "retry" | "redelivered" };
  /** The last message: what `"wait": true` answers. */
  done: TurnOutcome;
  /** The last message when there is no outcome to give (timeout, orchestrator stopped). */
  error: { error: { code: string; message: string }; eventId?: string };
  /** A streamed decision's first message: the decided approval. */
  approval: ApprovalView;
}

/** An approval as the API shows it (times as ISO strings). */
export interface ApprovalView {
  id: string;
  agent: string;
  instanceKey: string;
  toolName: string;
  arguments: JsonObject;
  requestedAt: string;
  expiresAt?: string;
  approvers?: string[];
  eventId: string;
  turnId: string;
  decision?: ApprovalDecisionKind;
  decidedAt?: string;
  reason?: string;
  decidedBy?: string;
}

/** Every refusal of the API: `{error: {code, message, suggestion?}}` plus fields some codes add (`eventId`). */
export interface ApiErrorBody {
  error: { code: string; message: string; suggestion?: string };
  [field: string]: unknown;
}
