/**
 * sendAnswerBack with a fake messenger: an answer is sent again while the node that accepted the event is a member
 * that does not take it, given up at once for a node gone from the membership, and at the requester's deadline.
 */
import { describe, expect, it } from "bun:test";
import { sendAnswerBack } from "../../../src/cluster/answers/answer-return.ts";
import type { RequestOutcome } from "../../../src/cluster/nats/messenger.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import { failedOutcome } from "../../../src/protocol/turn-outcome.ts";
import { silentLogger } from "../../../src/shared/logger.ts";

const event = (deadline?: number) =>
  ({ id: "evt_1", agent: "worker", instanceKey: "w-0", ...(deadline === undefined ? {} : { deadline }) }) as AgentEvent;
const outcome = failedOutcome({
  agent: "worker",
  instanceKey: "w-0",
  eventId: "evt_1",
  error: { code: "X", message: "x" },
});

/** A messenger answering each attempt with the next of `answers` (then ok), counting attempts. */
function messenger(answers: Array<RequestOutcome<{ settled: true }>>) {
  const sent: string[] = [];
  return {
    sent,
    requestNode: async (node: string) => {
      sent.push(node);
      return answers.shift() ?? { status: "ok" as const, value: { settled: true as const } };
    },
  };
}

describe("sendAnswerBack", () => {
  it("sends again while the node that accepted the event is a member that does not take it (no responders, timeouts)", async () => {
    const m = messenger([{ status: "no_responders" }, { status: "timeout" }]);
    expect(
      await sendAnswerBack({
        messenger: m,
        origin: "n1",
        event: event(),
        outcome,
        isMember: async () => true,
        logger: silentLogger(),
      }),
    ).toBe(true);
    expect(m.sent).toEqual(["n1", "n1", "n1"]);
  });

  it("gives up at once when that node is no longer a member (it died): the caller hands the answer to its own requests", async () => {
    const m = messenger([{ status: "no_responders" }]);
    expect(
      await sendAnswerBack({
        messenger: m,
        origin: "gone",
        event: event(),
        outcome,
        isMember: async () => false,
        logger: silentLogger(),
      }),
    ).toBe(false);
    expect(m.sent).toEqual(["gone"]);
  });

  it("keeps trying when membership cannot be read, and stops at the requester's deadline", async () => {
    const m = messenger(Array.from({ length: 50 }, () => ({ status: "timeout" as const })));
    const started = Date.now();
    const sent = await sendAnswerBack({
      messenger: m,
      origin: "n1",
      event: event(Date.now() + 700),
      outcome,
      isMember: async () => {
        throw new Error("NATS is away");
      },
      logger: silentLogger(),
    });
    expect(sent).toBe(false);
    expect(m.sent.length).toBeGreaterThan(1);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
