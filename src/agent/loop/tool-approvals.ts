/**
 * ToolApprovals: the agent side of approvals of tool calls, one per instance. A toolCall middleware (the built-in
 * `tool-approval` extension, through `api.approvals`) asks for a call's decision; without one it `hold`s the
 * call: the call is recorded as awaiting approval, run-tool-calls stops there, and the turn ends
 * `awaiting_approval` with the requests in its commit (the store keeps them). When the event comes back with every
 * decision (`begin` with `approvals`), the same calls are run again through the same middleware, which now finds the
 * decision: approve → the tool runs; deny or timeout → a structured E_TOOL_DENIED / E_TOOL_APPROVAL_TIMEOUT.
 */
import type { Approval, ApprovalDecision, ApprovalRequest } from "../../protocol/approval.ts";
import type { ToolResult } from "../../protocol/conversation.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import type { JsonObject } from "../../shared/json.ts";

export interface HoldRequest {
  toolCallId: string;
  toolName: string;
  args: JsonObject;
  /** Past this many seconds without a decision the call is answered E_TOOL_APPROVAL_TIMEOUT. Absent: no deadline. */
  timeoutSeconds?: number;
  approvers?: string[];
}

/** `api.approvals`: what a toolCall middleware uses to hold a call for a person's decision (ToolApprovals below). */
export interface ExtensionApprovals {
  /** The decision on this call of the current turn, once a person (or the deadline) made it. */
  decision(toolCallId: string): ApprovalDecision | undefined;
  /** Holds the call for a decision: the turn stops after it. Return the result it gives (never shown to the model). */
  hold(request: HoldRequest): ToolResult;
}

export class ToolApprovals implements ExtensionApprovals {
  private decisions = new Map<string, Approval>();
  private requested: ApprovalRequest[] = [];
  private turn: { eventId: string; turnId: string; traceId: string } = { eventId: "", turnId: "", traceId: "" };

  constructor(
    private readonly options: { agentName: string; instanceKey: string; ids: IdGenerator; now: () => number },
  ) {}

  /** A turn starts for `eventId`; `approvals` are the decided approvals its earlier part stopped for. */
  begin(options: { eventId: string; turnId: string; traceId: string; approvals?: readonly Approval[] }): void {
    this.turn = { eventId: options.eventId, turnId: options.turnId, traceId: options.traceId };
    this.requested = [];
    this.decisions = new Map(
      (options.approvals ?? [])
        .filter((approval) => approval.eventId === options.eventId)
        .map((approval) => [approval.toolCallId, approval]),
    );
  }

  /**
   * The resumed step has used the decisions: a later call of the turn must be asked about again, even if its
   * model reuses a call id that was decided before.
   */
  decisionsUsed(): void {
    this.decisions.clear();
  }

  /** The decided approval of a call of this event (applied or not). */
  approvalOf(toolCallId: string): Approval | undefined {
    return this.decisions.get(toolCallId);
  }

  decision(toolCallId: string): ApprovalDecision | undefined {
    return this.decisions.get(toolCallId)?.decision;
  }

  hold(request: HoldRequest): ToolResult {
    const now = this.options.now();
    const approval: ApprovalRequest = {
      id: this.options.ids("appr"),
      agent: this.options.agentName,
      instanceKey: this.options.instanceKey,
      eventId: this.turn.eventId,
      turnId: this.turn.turnId,
      traceId: this.turn.traceId,
      toolCallId: request.toolCallId,
      toolName: request.toolName,
      arguments: request.args,
      requestedAt: now,
      ...(request.timeoutSeconds === undefined ? {} : { expiresAt: now + request.timeoutSeconds * 1000 }),
      ...(request.approvers === undefined || request.approvers.length === 0 ? {} : { approvers: request.approvers }),
    };
    this.requested.push(approval);
    return { status: "pending", handle: approval.id, output: { awaitingApproval: approval.id } };
  }

  /** True once a call of this turn was held: the turn stops. */
  get holding(): boolean {
    return this.requested.length > 0;
  }

  /** The request made for this call in this turn, if it was held. */
  heldFor(toolCallId: string): ApprovalRequest | undefined {
    return this.requested.find((request) => request.toolCallId === toolCallId);
  }

  /** The requests of this turn, for its commit (once). */
  takeRequested(): ApprovalRequest[] {
    const requested = this.requested;
    this.requested = [];
    return requested;
  }

  /** The ids the turn waits for (before they are taken). */
  get requestedIds(): string[] {
    return this.requested.map((request) => request.id);
  }
}
