/**
 * The agent child's link to its durable state, which the orchestrator's store keeps: `commit` makes part of a turn
 * durable before the turn goes on (a step's tool calls before they run, extension state, a tool's completion) and
 * resolves once the store has it; `olderMessages` reads a page of the stored history the child no longer holds
 * (`ctx.conversation.older()`); `runtimeEvent` hands over an observability record (batched, not awaited). The
 * turn's own end is made durable with its outcome (the child's `turn_result`). Over IPC in production
 * (agent/child/ipc-instance-link.ts); tests link an instance to a store directly.
 */
import type { Message, OlderMessagesQuery } from "../../protocol/conversation.ts";
import type { CommitOptions, InstanceCommit } from "../../protocol/instance-state.ts";
import type { RuntimeEvent } from "../../protocol/runtime-event.ts";

export interface InstanceLink {
  commit(commit: InstanceCommit, options?: CommitOptions): Promise<void>;
  olderMessages(query: OlderMessagesQuery): Promise<Message[]>;
  runtimeEvent(event: RuntimeEvent): void;
}
