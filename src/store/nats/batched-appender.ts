/**
 * One writer's appends grouped into as few messages as their order allows: an append made while the previous
 * message is on its way to JetStream waits, and every append that waited goes out together as one message (one
 * acknowledgement, one expected-sequence check), as the embedded store groups the writes of a tick into one sync.
 * An append made while nothing is on its way goes out at once: grouping never adds a wait. Records keep their order,
 * and each append settles with the outcome of the message that carried it (a fenced message fences every append
 * in it; a failed publish fails them all). A group is cut at `maxBytes` so that it stays under NATS's payload limit.
 */
import type { AppendOutcome, FencedWriter } from "./fenced-writer.ts";

/** Default cap of one grouped message's records, in bytes of JSON (NATS's default payload limit is 1 MiB). */
export const DEFAULT_BATCH_MAX_BYTES = 256 * 1024;

interface Waiting {
  json: string;
  resolve: (outcome: AppendOutcome) => void;
  reject: (error: unknown) => void;
}

/** A message holding several records, as the log keeps it: `{"batch": [record, …]}`. */
export type RecordBatch<Record> = { batch: Record[] };

/** The records of one message of the log, whether it holds one record or a batch of them. */
export function recordsOf<Record>(value: Record | RecordBatch<Record>): Record[] {
  return typeof value === "object" && value !== null && Array.isArray((value as RecordBatch<Record>).batch)
    ? (value as RecordBatch<Record>).batch
    : [value as Record];
}

export class BatchedAppender {
  private queue: Waiting[] = [];
  private writing = false;
  /** Messages published so far (each one acknowledgement), for tests and figures. */
  messages = 0;

  constructor(
    private readonly writer: Pick<FencedWriter, "appendJson">,
    private readonly maxBytes = DEFAULT_BATCH_MAX_BYTES,
  ) {}

  /** Appends one record (already JSON, not an array or a `batch` object) after every earlier one. */
  append(json: string): Promise<AppendOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ json, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const group = this.nextGroup();
      this.messages += 1;
      try {
        const outcome = await this.writer.appendJson(
          group.length === 1
            ? (group[0] as Waiting).json
            : `{"batch":[${group.map((waiting) => waiting.json).join(",")}]}`,
        );
        for (const waiting of group) waiting.resolve(outcome);
      } catch (error) {
        for (const waiting of group) waiting.reject(error);
      }
    }
    this.writing = false;
  }

  /** The oldest waiting appends, as many as fit in `maxBytes` (at least one). */
  private nextGroup(): Waiting[] {
    let bytes = 0;
    let count = 0;
    for (const waiting of this.queue) {
      if (count > 0 && bytes + waiting.json.length > this.maxBytes) break;
      bytes += waiting.json.length + 1;
      count += 1;
    }
    return this.queue.splice(0, count);
  }
}
