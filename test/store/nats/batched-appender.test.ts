import { describe, expect, it } from "bun:test";
import { BatchedAppender, recordsOf } from "../../../src/store/nats/batched-appender.ts";
import type { AppendOutcome } from "../../../src/store/nats/fenced-writer.ts";

/** A writer whose publishes the test completes one by one, recording each message's body. */
function heldWriter() {
  const bodies: string[] = [];
  const waiting: Array<(outcome: AppendOutcome | Error) => void> = [];
  return {
    bodies,
    writer: {
      appendJson: (json: string) => {
        bodies.push(json);
        return new Promise<AppendOutcome>((resolve, reject) =>
          waiting.push((outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome))),
        );
      },
    },
    /** Completes the oldest message on its way, then lets the appender go on. */
    async complete(outcome: AppendOutcome | Error): Promise<void> {
      const next = waiting.shift();
      if (next === undefined) throw new Error("no message on its way");
      next(outcome);
      await Bun.sleep(0);
    },
  };
}

describe("BatchedAppender", () => {
  it("sends an append at once when nothing is on its way, and groups the appends made meanwhile into the next message, in order", async () => {
    const held = heldWriter();
    const appender = new BatchedAppender(held.writer);
    const first = appender.append(JSON.stringify({ n: 1 }));
    const rest = [2, 3, 4].map((n) => appender.append(JSON.stringify({ n })));
    expect(held.bodies).toEqual(['{"n":1}']);
    await held.complete({ status: "written", sequence: 7 });
    expect(await first).toEqual({ status: "written", sequence: 7 });
    expect(held.bodies).toHaveLength(2);
    expect(recordsOf(JSON.parse(held.bodies[1] as string))).toEqual([{ n: 2 }, { n: 3 }, { n: 4 }]);
    await held.complete({ status: "written", sequence: 8 });
    expect(await Promise.all(rest)).toEqual([1, 2, 3].map(() => ({ status: "written", sequence: 8 })));
    expect(appender.messages).toBe(2);
  });

  it("settles every append of a group with its message's outcome: fenced, or the publish's error", async () => {
    const held = heldWriter();
    const appender = new BatchedAppender(held.writer);
    void appender.append("{}");
    const fenced = [appender.append('{"a":1}'), appender.append('{"a":2}')];
    await held.complete({ status: "written", sequence: 1 });
    await held.complete({ status: "fenced" });
    expect(await Promise.all(fenced)).toEqual([{ status: "fenced" }, { status: "fenced" }]);
    const failed = appender.append('{"b":1}').then(
      () => undefined,
      (error: unknown) => error,
    );
    const unreachable = new Error("no answer");
    await held.complete(unreachable);
    expect(await failed).toBe(unreachable);
  });

  it("cuts a group at maxBytes, keeping at least one record per message", async () => {
    const held = heldWriter();
    const appender = new BatchedAppender(held.writer, 20);
    void appender.append("{}");
    const big = "x".repeat(30);
    const all = [appender.append(`{"a":"${big}"}`), appender.append('{"b":1}'), appender.append('{"c":2}')];
    for (let i = 0; i < 3; i++) await held.complete({ status: "written", sequence: i + 1 });
    await Promise.all(all);
    expect(held.bodies.map((body) => recordsOf(JSON.parse(body)).length)).toEqual([1, 1, 2]);
  });

  it("reads a message of one record as that record (logs written before grouping replay unchanged)", () => {
    expect(recordsOf({ op: "clear" })).toEqual([{ op: "clear" }]);
    expect(recordsOf({ batch: [{ op: "clear" }, { op: "clear" }] })).toHaveLength(2);
  });
});
