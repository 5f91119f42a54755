/**
 * An agent instance's durable state as it crosses the process boundary: what the orchestrator hands a child when it
 * starts (`hydrate`: the conversation, the results waiting to be shown, the extensions' state), and what the child
 * hands back to be made durable (`InstanceCommit`: conversation changes, the pending results it showed to the model,
 * new pending results of its own, extension state) — with a turn's outcome at the end of a turn, in one commit.
 */
import type { JsonValue } from "../shared/json.ts";
import type { ApprovalRequest } from "./approval.ts";
import type { Message, MessageEvent, PendingResult } from "./conversation.ts";

export interface InstanceState {
  /**
   * The conversation the model sees, in order: never the history archived out of it (MessageEvent `archive`),
   * which the child reads a page at a time when an extension asks (`older_messages`), so what a child is handed and
   * holds is bounded by its model's view, not by the instance's age.
   */
  messages: Message[];
  pendingResults: PendingResult[];
  /** By extension name. */
  extensionState: Record<string, JsonValue>;
}

export interface InstanceCommit {
  /** Conversation changes since the last commit, in order. */
  changes?: MessageEvent[];
  /** Ids (pendingResultId) of pending results now shown to the model: they leave the store with this commit. */
  consumed?: string[];
  /** Pending results the child produced itself (completions of its pending tool calls). */
  added?: PendingResult[];
  /** Extension state set since the last commit, by extension name (null removes it). */
  extensionState?: Record<string, JsonValue | null>;
  /** Tool calls the turn stopped at (`requested`), and decided approvals whose calls the resumed turn consumed (`applied`, by id). */
  approvals?: { requested?: ApprovalRequest[]; applied?: string[] };
}

/**
 * How a commit in the middle of a turn is waited on. `sync: false`: what the turn does next depends on the
 * orchestrator's store alone (a step whose tool calls are all the built-in `agents` tool's, whose requests the
 * orchestrator writes after this commit in the same log and knows by the call's id), or cannot do harm if it is
 * done again (a step whose calls are all idempotent), so the commit is answered once applied, not once on disk: an
 * ordered store (Store.ordered) makes it durable with the next synced write, and a machine crash before then loses
 * it together with everything written after it. Any other commit, and any commit on a store that is not ordered, is
 * answered once synced.
 */
export interface CommitOptions {
  sync?: boolean;
}

export const isEmptyCommit = (commit: InstanceCommit): boolean =>
  (commit.changes?.length ?? 0) === 0 &&
  (commit.consumed?.length ?? 0) === 0 &&
  (commit.added?.length ?? 0) === 0 &&
  Object.keys(commit.extensionState ?? {}).length === 0 &&
  (commit.approvals?.requested?.length ?? 0) === 0 &&
  (commit.approvals?.applied?.length ?? 0) === 0;

/** The state of an instance that has none yet. */
export const emptyInstanceState = (): InstanceState => ({ messages: [], pendingResults: [], extensionState: {} });
