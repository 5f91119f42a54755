/**
 * One store write as an instance's state log keeps it (events accepted, commits, answers, pending results,
 * crashes, a cleared conversation, approval decisions), and how a replay makes it again in an embedded store.
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { ApprovalDecision } from "../../protocol/approval.ts";
import type { PendingResult } from "../../protocol/conversation.ts";
import type { InstanceCommit } from "../../protocol/instance-state.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { InstanceRef, Store } from "../store.ts";

/** One store write, as the log keeps it. */
export type StateRecord =
  | { op: "accept"; event: AgentEvent; acceptedAt: number }
  | { op: "commit"; commit: InstanceCommit; outcome?: TurnOutcome }
  | { op: "answer"; eventId: string; outcome: TurnOutcome }
  | { op: "pending"; result: PendingResult }
  | { op: "interrupted"; eventId: string; crash?: string }
  | { op: "clear" }
  | { op: "decide"; approvalId: string; decision: ApprovalDecision };

/** Makes one record's write in `local`, as its owner made it (a replay). */
export async function applyRecord(local: Store, ref: InstanceRef, record: StateRecord): Promise<void> {
  switch (record.op) {
    case "accept":
      return local.accept(ref.swarm, record.event, record.acceptedAt, { sync: false });
    case "commit":
      return local.commit(ref, record.commit, record.outcome, { sync: false });
    case "answer":
      return local.answer(ref.swarm, record.eventId, record.outcome);
    case "pending":
      return local.addPendingResult(ref, record.result, { sync: false });
    case "interrupted":
      return local.recordInterrupted(ref.swarm, record.eventId, record.crash);
    case "clear":
      await local.clearConversation(ref);
      return;
    case "decide":
      await local.decideApproval(ref.swarm, record.approvalId, record.decision);
  }
}
