/**
 * Writes that only a lease's current holder can make: appends to one JetStream subject (an instance's durable
 * state) that each carry the writer's lease revision and are published on the condition that the subject's
 * last sequence is the one this writer last wrote (`Nats-Expected-Last-Subject-Sequence`).
 *
 * A new holder `take`s the subject first: it writes a fence record at the subject's current last sequence,
 * unless that last record carries a newer lease revision than its own (then it is the stale one and is
 * refused). From the fence on, every append of an older holder fails on the sequence condition, since it never
 * re-reads the subject: a stale owner's write is refused by the server, not by a check that could race. The
 * refusal is a typed outcome (`fenced`), never a throw; only an unreachable server throws E_CLUSTER_UNAVAILABLE.
 */
import { headers, type MsgHdrs } from "@nats-io/transport-node";
import type { JsonValue } from "../../shared/json.ts";
import type { FenceToken, JetStreamHandle } from "./jetstream-handle.ts";
import { isWrongRevision, natsUnavailable } from "./nats-errors.ts";

/** The header every fenced record carries: the lease revision of the holder that wrote it. */
export const LEASE_REVISION_HEADER = "Gdn-Lease-Revision";
const FENCE_HEADER = "Gdn-Fence";
const MAX_TAKE_ATTEMPTS = 5;

/** `after`: the subject's last sequence before the fence (0 when it was empty). */
export type TakeOutcome =
  | { status: "taken"; writer: FencedWriter; after: number }
  | { status: "fenced"; newerRevision: number };
export type AppendOutcome = { status: "written"; sequence: number } | { status: "fenced" };

export interface TakeOptions {
  connection: JetStreamHandle;
  /** The stream holding `subject`. */
  stream: string;
  subject: string;
  /** What makes this node the subject's writer (the cluster's lease on the instance). */
  lease: FenceToken;
}

export class FencedWriter {
  private fenced = false;

  private constructor(
    private readonly options: TakeOptions,
    private lastSequence: number,
  ) {}

  /** Become the subject's only writer, for as long as no newer lease holder takes it. */
  static async take(options: TakeOptions): Promise<TakeOutcome> {
    for (let attempt = 1; ; attempt++) {
      const last = await lastRecord(options);
      if (last !== undefined && last.revision > options.lease.revision)
        return { status: "fenced", newerRevision: last.revision };
      const fence = recordHeaders(options.lease, true);
      fence.set("Nats-Expected-Last-Subject-Sequence", String(last?.sequence ?? 0));
      try {
        const ack = await options.connection.js.publish(
          options.subject,
          JSON.stringify({ fence: options.lease.revision, owner: options.lease.owner }),
          { headers: fence },
        );
        return { status: "taken", writer: new FencedWriter(options, ack.seq), after: last?.sequence ?? 0 };
      } catch (error) {
        // Someone wrote in between (the old holder's last append): read again.
        if (!isWrongRevision(error) || attempt === MAX_TAKE_ATTEMPTS)
          throw natsUnavailable(`taking ${options.subject}`, error);
      }
    }
  }

  /** The sequence of this writer's last write (its fence, or its last append). */
  get sequence(): number {
    return this.lastSequence;
  }

  /** Append one record; `fenced` once a newer holder took the subject (and for every append after that). */
  append(value: JsonValue): Promise<AppendOutcome> {
    return this.appendJson(JSON.stringify(value));
  }

  /** `append` of a record already in JSON (one message, one acknowledgement, one sequence check). */
  async appendJson(json: string): Promise<AppendOutcome> {
    if (this.fenced) return { status: "fenced" };
    const record = recordHeaders(this.options.lease, false);
    record.set("Nats-Expected-Last-Subject-Sequence", String(this.lastSequence));
    try {
      const ack = await this.options.connection.js.publish(this.options.subject, json, { headers: record });
      this.lastSequence = ack.seq;
      return { status: "written", sequence: ack.seq };
    } catch (error) {
      if (!isWrongRevision(error)) throw natsUnavailable(`writing ${this.options.subject}`, error);
      this.fenced = true;
      return { status: "fenced" };
    }
  }
}

function recordHeaders(lease: FenceToken, fence: boolean): MsgHdrs {
  const result = headers();
  result.set(LEASE_REVISION_HEADER, String(lease.revision));
  if (fence) result.set(FENCE_HEADER, lease.owner);
  return result;
}

async function lastRecord(options: TakeOptions): Promise<{ sequence: number; revision: number } | undefined> {
  try {
    const message = await options.connection.jsm.streams.getMessage(options.stream, { last_by_subj: options.subject });
    if (message === null) return undefined;
    return { sequence: message.seq, revision: Number(message.header.get(LEASE_REVISION_HEADER) || 0) };
  } catch (error) {
    throw natsUnavailable(`reading the last record of ${options.subject}`, error);
  }
}
