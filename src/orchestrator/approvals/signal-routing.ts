/**
 * The seam where "the turns waiting for a signal are here" becomes "they are on whichever node owns their instance"
 * (cluster mode, src/cluster). Without it the ApprovalDesk wakes the waits of its own store, as on one host. With it
 * (EventPlacement.signals) a signal sent to any node is `send`: the routing finds every turn that waits for it in the
 * cluster, keeps the signal durably for each, and has the node owning each instance apply it (`SignalDesk`, the
 * owner's ApprovalDesk), now or once a node takes the instance over. The desk tells it which signal waits it holds
 * (`waiting`: durable here, its deadline armed) and which were decided (`settled`), so any node can find them.
 */
import type { Approval } from "../../protocol/approval.ts";
import type { JsonValue } from "../../shared/json.ts";

/** What the routing asks of the desk of the node owning an instance. */
export interface SignalDesk {
  /** Wakes the call `approvalId` with the signal `name`'s payload; the approval when this decided it, else undefined. */
  applySignal(approvalId: string, name: string, payload: JsonValue): Promise<Approval | undefined>;
}

export interface SignalRouting {
  attach(desk: SignalDesk): void;
  /** Sends the signal to every wait for it in the cluster, durably; the waits it reached (none: nobody waits). */
  send(name: string, payload: JsonValue): Promise<Approval[]>;
  /** A call suspended for a signal is durable on this node, which runs its instance. */
  waiting(approval: Approval): void;
  /** A call suspended for a signal was decided (woken, or timed out). */
  settled(approval: Approval): void;
}
