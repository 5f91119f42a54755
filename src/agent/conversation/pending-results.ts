/**
 * Replies to this instance's async requests (`agents__request` with `async: true`) that arrived but have not yet
 * been shown to the model. Each arrival is appended durably; before the next step they are turned into messages
 * and removed from the file. A crash between the two may leave one already shown: callers skip correlation ids
 * whose message is already in the conversation.
 */
import type { ParentToChild } from "../../ipc/protocol.ts";
import { JsonlAppender, readJsonl, writeJsonlAtomic } from "./jsonl-file.ts";

export type DelegateResult = ParentToChild["delegate_result"];

export class PendingResults {
  private items: DelegateResult[];
  private readonly appender: JsonlAppender;

  constructor(private readonly file: string) {
    this.items = readJsonl<DelegateResult>(file).records.filter((item) => typeof item?.correlationId === "string");
    this.appender = new JsonlAppender(file);
  }

  add(result: DelegateResult): void {
    this.appender.append(result);
    this.items.push(result);
  }

  list(): readonly DelegateResult[] {
    return this.items;
  }

  /** Forgets the given correlation ids (their messages are durable now). */
  remove(correlationIds: readonly string[]): void {
    if (correlationIds.length === 0) return;
    const gone = new Set(correlationIds);
    this.items = this.items.filter((item) => !gone.has(item.correlationId));
    this.appender.close();
    writeJsonlAtomic(this.file, this.items);
  }

  close(): void {
    this.appender.close();
  }
}
