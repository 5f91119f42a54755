/**
 * Approvals of tool calls: a call that a person must allow before it runs (the built-in `tool-approval`
 * extension marks it). The record crosses every boundary: the agent child asks for it in its turn's commit, the
 * store keeps it (pending, then decided, then applied once the resumed turn consumed the decision), the HTTP API
 * lists and decides it, and the resumed event carries the decisions back to the child.
 */
import type { JsonObject } from "../shared/json.ts";

export type ApprovalDecisionKind = "approve" | "deny" | "timeout";

export interface ApprovalDecision {
  decision: ApprovalDecisionKind;
  reason?: string;
  /** Epoch ms. */
  decidedAt: number;
  /** Who decided, when the caller said (`approver`); `goondan` for a timeout. */
  decidedBy?: string;
}

export interface Approval {
  /** `appr_…`, unique in the swarm. */
  id: string;
  agent: string;
  instanceKey: string;
  /** The event whose turn stopped for it: the turn resumes under this event once every approval of it is decided. */
  eventId: string;
  turnId: string;
  /** The trace of the turn, for the `approval.*` runtime events. */
  traceId: string;
  toolCallId: string;
  toolName: string;
  arguments: JsonObject;
  /** Epoch ms. */
  requestedAt: number;
  /** Epoch ms; absent: it waits for a decision without a deadline. */
  expiresAt?: number;
  /** Only these credentials may decide (matched against the deciding credential's name); absent: any with the approve scope. */
  approvers?: string[];
  decision?: ApprovalDecision;
  /** The resumed turn consumed the decision (an approved call started): it is never applied again. */
  applied?: boolean;
}

/** What an agent child asks for when a toolCall middleware holds a call (the store stamps nothing more). */
export type ApprovalRequest = Omit<Approval, "decision" | "applied">;
