/**
 * `results.jsonl`: the committed result of every turn, by inbound event id. It makes redelivery idempotent:
 * an event the orchestrator delivers again after a crash, whose turn already committed, is answered from here
 * without calling the model again.
 */
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import { JsonlAppender, readJsonl, type SkippedLine } from "./jsonl-file.ts";

export class ResultsLog {
  private readonly byEventId = new Map<string, TurnOutcome>();
  private readonly appender: JsonlAppender;
  readonly skipped: SkippedLine[];

  constructor(file: string) {
    const read = readJsonl<TurnOutcome>(file);
    for (const result of read.records) if (typeof result?.eventId === "string") this.byEventId.set(result.eventId, result);
    this.skipped = read.skipped;
    this.appender = new JsonlAppender(file);
  }

  get(eventId: string): TurnOutcome | undefined {
    return this.byEventId.get(eventId);
  }

  /** Durable before returning. */
  record(result: TurnOutcome): void {
    this.appender.append(result);
    this.byEventId.set(result.eventId, result);
  }

  close(): void {
    this.appender.close();
  }
}
