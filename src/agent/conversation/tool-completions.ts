/**
 * Background delivery of pending tool completions: the `onPendingCompletion` listener run-step hands to
 * executeToolCall. It awaits the completion (settleCompletion: ok with JSON output, or a structured error) and
 * commits the outcome (the store keeps it as a pending result of the instance) and keeps it in the instance's
 * pending results, from where it is shown to the model before its next step, exactly like a reply to an async
 * `agents__request`.
 */
import type { InstanceCommit } from "../../protocol/instance-state.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import type { Logger } from "../../shared/logger.ts";
import {
  settleCompletion,
  type PendingCompletion,
  type PendingCompletionListener,
} from "../../tools/pending-completion.ts";
import type { PendingResults, ToolCompletion } from "./pending-results.ts";

export interface ToolCompletionsOptions {
  pendingResults: PendingResults;
  /** Makes the completion durable (the instance link's commit). */
  commit: (commit: InstanceCommit) => Promise<void>;
  ids: IdGenerator;
  logger: Logger;
}

/** Tracks the completions still outstanding, so tests (and shutdown logs) can wait for or count them. */
export class ToolCompletions {
  private readonly outstanding = new Set<Promise<void>>();

  constructor(private readonly options: ToolCompletionsOptions) {}

  /** The listener for ToolInvocationContext.onPendingCompletion. */
  readonly listener: PendingCompletionListener = (completion) => {
    const delivery = this.deliver(completion);
    this.outstanding.add(delivery);
    void delivery.finally(() => this.outstanding.delete(delivery));
  };

  get size(): number {
    return this.outstanding.size;
  }

  /** Resolves once every completion handed over so far has been settled and stored. */
  async idle(): Promise<void> {
    while (this.outstanding.size > 0) await Promise.all([...this.outstanding]);
  }

  private async deliver(completion: PendingCompletion): Promise<void> {
    const result = await settleCompletion(completion);
    const item: ToolCompletion = {
      kind: "tool_completion",
      id: this.options.ids("tcmp"),
      handle: completion.handle,
      toolName: completion.toolName,
      toolCallId: completion.toolCallId,
      result,
    };
    // The commit is handed over first and awaited after: commits reach the store in the order they are made, so
    // the step commit that later consumes this completion can never overtake the commit that adds it.
    const committed = this.options.commit({ added: [item] });
    if (!this.options.pendingResults.add(item))
      this.options.logger.warn(
        { tool: completion.toolName, handle: completion.handle },
        "a tool completion arrived after the instance closed; dropped",
      );
    try {
      await committed;
    } catch (error) {
      this.options.logger.error(
        {
          tool: completion.toolName,
          handle: completion.handle,
          error: error instanceof Error ? error.message : String(error),
        },
        "could not store a tool completion",
      );
    }
  }
}
