/**
 * Outcomes that arrived for this instance but have not yet been shown to the model: replies to its async requests
 * (`agents__request` with `async: true`, which the orchestrator stores before handing them over) and completions of
 * its pending tool calls (which the child commits itself before keeping them here). Hydrated when the child starts;
 * before the next step they are turned into messages and removed, and the ids removed go to the store with the next
 * commit (`takeConsumed`). The same result handed over twice (after a restart) is kept once.
 */
import { pendingResultId, type PendingResult } from "../../protocol/conversation.ts";
import type { Reply } from "../../protocol/turn-outcome.ts";

export type { PendingResult, ToolCompletion } from "../../protocol/conversation.ts";
export { isToolCompletion, pendingResultId } from "../../protocol/conversation.ts";
export type DelegateResult = Reply;

export class PendingResults {
  private items: PendingResult[];
  private consumed: string[] = [];
  private readonly listeners: (() => void)[] = [];
  private closed = false;

  constructor(items: readonly PendingResult[] = []) {
    this.items = [...items];
  }

  /** Keeps a result (already durable in the store). False once closed: the instance is gone. */
  add(result: PendingResult): boolean {
    if (this.closed) return false;
    const id = pendingResultId(result);
    if (this.items.some((item) => pendingResultId(item) === id)) return true;
    this.items.push(result);
    for (const listener of this.listeners) listener();
    return true;
  }

  /** Called after each `add` (the agent child asks for a turn when it is idle). */
  onAdded(listener: () => void): void {
    this.listeners.push(listener);
  }

  list(): readonly PendingResult[] {
    return this.items;
  }

  /** Forgets the given ids (see pendingResultId): their messages are in the conversation now. */
  remove(ids: readonly string[]): void {
    if (ids.length === 0) return;
    const gone = new Set(ids);
    this.items = this.items.filter((item) => !gone.has(pendingResultId(item)));
    this.consumed.push(...ids);
  }

  /** The ids removed since the last commit, handed over to be committed. */
  takeConsumed(): string[] {
    const consumed = this.consumed;
    this.consumed = [];
    return consumed;
  }

  close(): void {
    this.closed = true;
  }
}
