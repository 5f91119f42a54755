/**
 * The orchestrator's side of an agent child's state. A new child is handed what the store holds (`hydrateChild`).
 * A step an agent child commits in the middle of a turn (its messages before the step's tools run, a tool's
 * completion, its extensions' state): made durable in the store, then answered `committed` with the child's
 * sequence number, so the child runs nothing that depends on it before it is on disk (or, for a step whose calls
 * only ask the orchestrator, before it is applied to an ordered store: protocol/instance-state.ts CommitOptions). A store that cannot write
 * answers the code and cause; the child then ends without answering its event (agent/child/agent-child.ts).
 * A turn's end is committed together with the outcome that answers its event (`commitTurn`). The child holds only
 * the conversation its model sees; a page of the history beyond it is read from the store when an extension asks
 * (`answerOlderMessages`).
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { Message } from "../../protocol/conversation.ts";
import type { InstanceCommit, InstanceState } from "../../protocol/instance-state.ts";
import type { ChildToParent } from "../../protocol/ipc-messages.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { describe, isGoondanError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import type { ChildProcess } from "../../supervision/child-process.ts";
import type { InstanceRef, Store, WriteOptions } from "../../store/store.ts";

export function commitStep(options: {
  store: Store;
  ref: InstanceRef;
  child: ChildProcess;
  commit: ChildToParent["commit"];
  /** The store refused it: called before the child hears so, and before any later message of the child is read. */
  refused: () => void;
}): void {
  const { seq, sync, ...commit } = options.commit;
  // `sync: false` (protocol/instance-state.ts CommitOptions) only where writes become durable in order.
  const write = sync === false && options.store.ordered ? { sync: false } : undefined;
  options.store.commit(options.ref, commit, undefined, write).then(
    () => options.child.send("committed", { seq }),
    (error: unknown) => {
      options.refused();
      options.child.send("committed", {
        seq,
        error: { code: storeCode(error), message: describe(error).message },
      });
    },
  );
}

/**
 * Commits the turn's last changes with its outcome (applied at once by an ordered store); resolves once durable,
 * rejects with the store's error described.
 */
export function commitTurn(options: {
  store: Store;
  ref: InstanceRef;
  commit: InstanceCommit;
  outcome: TurnOutcome;
  event: AgentEvent;
  /** `committed`: called once it is stored (WriteOptions). */
  options?: WriteOptions;
}): Promise<void> {
  let committed: Promise<void>;
  try {
    // Synced when someone outside waits on the answer; an answer to an agent is made durable by what follows it.
    committed = options.store.commit(options.ref, options.commit, options.outcome, {
      ...options.options,
      sync: fromOutside(options.event),
    });
  } catch (error) {
    committed = Promise.reject(error);
  }
  return committed.catch((error: unknown) => {
    throw isGoondanError(error) ? error : new Error(describe(error).message);
  });
}

/** An event a person, an API client or a connector sent (not an agent or goondan itself). */
export const fromOutside = (event: AgentEvent): boolean =>
  event.source.kind === "api" || event.source.kind === "connector" || event.source.kind === "user";

/** Answers a child's `older_messages` with a page of the instance's stored history, or the store's error. */
export function answerOlderMessages(options: {
  store: Store;
  ref: InstanceRef;
  child: ChildProcess;
  request: ChildToParent["older_messages"];
}): void {
  const { requestId, ...query } = options.request;
  let read: Promise<Message[]>;
  try {
    read = options.store.olderMessages(options.ref, query);
  } catch (error) {
    read = Promise.reject(error);
  }
  read.then(
    (messages) => options.child.send("older_messages_result", { requestId, messages }),
    (error: unknown) =>
      options.child.send("older_messages_result", {
        requestId,
        error: { code: "E_STORE_READ_FAILED", message: describe(error).message },
      }),
  );
}

/** Past this many messages handed to a starting child, the orchestrator's log says its memory grows with them. */
export const LARGE_CONVERSATION_MESSAGES = 5000;

/**
 * Hands a new child its state at once, right behind its `open` and ahead of its first event, so the instance is built
 * while the event's insert commits. A state the store cannot read stops the child rather than start it on an empty
 * conversation.
 */
export function hydrateChild(options: { store: Store; ref: InstanceRef; child: ChildProcess; logger: Logger }): void {
  let state: InstanceState;
  try {
    state = options.store.instanceState(options.ref);
  } catch (error) {
    options.logger.error(
      { error: describe(error).message },
      "could not read the instance's state; its child is stopped",
    );
    options.child.kill();
    return;
  }
  if (state.messages.length > LARGE_CONVERSATION_MESSAGES)
    options.logger.warn(
      { messages: state.messages.length },
      "the agent process is handed a conversation its model sees whole: its memory grows with it; message-window or message-compaction bound it (docs/limits.md, Memory)",
    );
  options.child.send("hydrate", state);
}

/** The code a child is told a refused step commit failed with: the store's own (E_STORE_UNAVAILABLE, ...), else a generic one. */
const storeCode = (error: unknown): string => {
  const code = describe(error).code;
  return code?.startsWith("E_STORE_") ? code : "E_STORE_WRITE_FAILED";
};
