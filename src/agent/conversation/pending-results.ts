/**
 * Outcomes that arrived for this instance but have not yet been shown to the model: replies to its async
 * requests (`agents__request` with `async: true`) and completions of its pending tool calls (a handler's
 * `pending(handle, output, { completion })`). Each arrival is appended durably; before the next step they are
 * turned into messages and removed from the file. A crash between the two may leave one already shown: callers
 * skip ids whose message is already in the conversation. File format: one JSON object per line; a reply is the
 * `delegate_result` payload as it always was (no `kind`), a tool completion has `kind: "tool_completion"`.
 */
import type { ParentToChild } from "../../protocol/ipc-messages.ts";
import type { ToolResult } from "../../tools/types.ts";
import { JsonlAppender, readJsonl, writeJsonlAtomic } from "./jsonl-file.ts";

export type DelegateResult = ParentToChild["delegate_result"];

/** The settled outcome of a pending tool call, as the model will read it. */
export interface ToolCompletion {
  kind: "tool_completion";
  /** Unique per completion; the id the conversation message carries (metadata.toolCompletionId). */
  id: string;
  handle: string;
  toolName: string;
  toolCallId: string;
  result: ToolResult;
}

export type PendingResult = DelegateResult | ToolCompletion;

export function isToolCompletion(item: PendingResult): item is ToolCompletion {
  return (item as { kind?: unknown }).kind === "tool_completion";
}

/** The id `remove` takes: a reply's correlationId, a tool completion's id. */
export function pendingResultId(item: PendingResult): string {
  return isToolCompletion(item) ? item.id : item.correlationId;
}

function isReadable(record: unknown): record is PendingResult {
  if (typeof record !== "object" || record === null) return false;
  const item = record as Record<string, unknown>;
  if (item.kind === "tool_completion") return typeof item.id === "string" && typeof item.handle === "string" && typeof item.result === "object" && item.result !== null;
  return item.kind === undefined && typeof item.correlationId === "string";
}

export class PendingResults {
  private items: PendingResult[];
  private readonly appender: JsonlAppender;
  private readonly listeners: (() => void)[] = [];
  private closed = false;

  constructor(private readonly file: string) {
    this.items = readJsonl<unknown>(file).records.filter(isReadable);
    this.appender = new JsonlAppender(file);
  }

  /**
   * Durable before returning. False (nothing kept) once closed: the instance is gone. A result already held
   * (the same reply handed over twice after an orchestrator restart) is kept once.
   */
  add(result: PendingResult): boolean {
    if (this.closed) return false;
    const id = pendingResultId(result);
    if (this.items.some((item) => pendingResultId(item) === id)) return true;
    this.appender.append(result);
    this.items.push(result);
    for (const listener of this.listeners) listener();
    return true;
  }

  /** Called after each durable `add` (the agent child asks for a turn when it is idle). */
  onAdded(listener: () => void): void {
    this.listeners.push(listener);
  }

  list(): readonly PendingResult[] {
    return this.items;
  }

  /** Forgets the given ids (see pendingResultId): their messages are durable now. */
  remove(ids: readonly string[]): void {
    if (ids.length === 0 || this.closed) return;
    const gone = new Set(ids);
    this.items = this.items.filter((item) => !gone.has(pendingResultId(item)));
    this.appender.close();
    writeJsonlAtomic(this.file, this.items);
  }

  close(): void {
    this.closed = true;
    this.appender.close();
  }
}
