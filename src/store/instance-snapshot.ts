/**
 * One instance's whole durable state as one value, for a backend that keeps a copy of it elsewhere (the cluster's
 * state log compacts each instance's log into one of these): every accepted event of the instance with its outcome
 * and crash count (an answered event sent again, however late, is answered from the store, never run again), the
 * approvals of its tool calls, its conversation in order and the history archived out of it, the results waiting to be shown, its extensions' state.
 * Runtime events are not part of it (they stay where they were written).
 */
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { ApprovalDecision, ApprovalRequest } from "../protocol/approval.ts";
import type { Message, PendingResult } from "../protocol/conversation.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { JsonValue } from "../shared/json.ts";
import type { InstanceRef, Store } from "./store.ts";

export interface SnapshotInboxEntry {
  event: AgentEvent;
  acceptedAt: number;
  crashes: number;
  lastCrash?: string;
  outcome?: TurnOutcome;
  /** Epoch ms. */
  answeredAt?: number;
}

export interface SnapshotApproval {
  request: ApprovalRequest;
  decision?: ApprovalDecision;
  applied: boolean;
}

export interface InstanceSnapshot {
  version: 1;
  /** In acceptance order. */
  inbox: SnapshotInboxEntry[];
  approvals: SnapshotApproval[];
  messages: Message[];
  /** Messages archived out of the conversation (its history), in order; absent when none. Imported before `messages`. */
  archived?: Message[];
  /** In the order they were added. */
  pendingResults: PendingResult[];
  extensionState: Record<string, JsonValue>;
}

/** A store that can export one instance at once (reads made in the call) and import it in place of what it held. */
export interface InstanceSnapshots {
  /** Everything of the instance written so far, read at once: a write made before the call is in it, none after. */
  exportInstance(instance: InstanceRef): InstanceSnapshot;
  /**
   * Makes the instance hold exactly `snapshot` (its conversation, pending results and extension state replaced; its
   * events and approvals set to the snapshot's). Resolves once committed.
   */
  importInstance(instance: InstanceRef, snapshot: InstanceSnapshot): Promise<void>;
}

export function canSnapshot(store: Store): store is Store & InstanceSnapshots {
  const candidate = store as Partial<InstanceSnapshots>;
  return typeof candidate.exportInstance === "function" && typeof candidate.importInstance === "function";
}
