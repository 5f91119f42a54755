/**
 * The seam where "the held calls are here" becomes "they are on whichever node owns their instance" (cluster mode,
 * src/cluster). Without it the ApprovalDesk wakes the waits of its own store and decides its own approvals, as on one
 * host. With it (EventPlacement.signals):
 * - a signal sent to any node is `send`: the routing finds every turn that waits for it in the cluster, keeps the
 *   signal durably for each, and has the node owning each instance apply it (`SignalDesk`, the owner's ApprovalDesk),
 *   now or once a node takes the instance over;
 * - a person's decision made on any node is `decide`: an approval whose instance runs on another node (or on none,
 *   its node dead) is kept durably for it and applied there once, the same way; one that runs here is left to the
 *   desk (`undefined`).
 * The desk tells it which calls wait for a signal or a person (`waiting`: durable here, its deadline armed) and which
 * were decided (`settled`), so any node can find them.
 */
import type { Approval } from "../../protocol/approval.ts";
import type { JsonValue } from "../../shared/json.ts";
import type { DecideAnswer, DecideRequest } from "./decide-request.ts";

/** What the routing asks of the desk of the node owning an instance. */
export interface SignalDesk {
  /** Wakes the call `approvalId` with the signal `name`'s payload; the approval when this decided it, else undefined. */
  applySignal(approvalId: string, name: string, payload: JsonValue): Promise<Approval | undefined>;
  /** Applies a person's decision another node kept for a call of an instance this node runs. */
  applyDecision(request: Pick<DecideRequest, "id" | "decision" | "reason" | "approver">): Promise<DecideAnswer>;
}

export interface SignalRouting {
  attach(desk: SignalDesk): void;
  /** Sends the signal to every wait for it in the cluster, durably; the waits it reached (none: nobody waits). */
  send(name: string, payload: JsonValue): Promise<Approval[]>;
  /**
   * A person's decision, for the node running the approval's instance: its answer, or undefined when that instance
   * runs here (the desk decides it itself, its turn's outcome and progress included).
   */
  decide(request: DecideRequest): Promise<DecideAnswer | undefined>;
  /** A call suspended for a signal, or held for a person, is durable on this node, which runs its instance. */
  waiting(approval: Approval): void;
  /** Such a call was decided (woken, approved or denied, or timed out). */
  settled(approval: Approval): void;
  /**
   * The call's deadline came: applies what was kept for it before that deadline (a signal or decision sent while
   * no node ran its instance) and says true, or false when nothing was, and the deadline is applied.
   */
  keptInTime?(approval: Approval): Promise<boolean>;
}
