/**
 * The turn of a `results.arrived` event (an idle instance woken for results that came in after its turn):
 * no user message of its own, the waiting results shown before the first step, and no model call at all
 * when an earlier turn already showed them.
 */
import { describe, expect, it } from "bun:test";
import { AgentInstance } from "../../src/agent/instance/agent-instance.ts";
import { RESULTS_ARRIVED_EVENT } from "../../src/protocol/agent-event.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { testEnv, userEvent } from "./support/test-env.ts";
import { reply as replyOf } from "../helpers/outcomes.ts";

function instanceWith(replies: Parameters<typeof scriptedModel>[0]) {
  const scripted = scriptedModel(replies);
  const test = testEnv({ model: scripted.model });
  const instance = new AgentInstance({ env: test.env, pendingResults: test.env.pendingResults });
  return { scripted, instance, env: test.env };
}

const wakeEvent = () =>
  userEvent("", { type: RESULTS_ARRIVED_EVENT, source: { kind: "system", name: "results-arrived" } });
const reply = replyOf({
  correlationId: "corr_1",
  agent: "worker",
  instanceKey: "main",
  response: "the report is ready",
});

describe("a results.arrived turn", () => {
  it("shows the arrived reply to the model without adding a user message of its own", async () => {
    const { scripted, instance, env } = instanceWith([{ text: "The worker finished: the report is ready." }]);
    const stored: number[] = [];
    instance.onPendingResult(() => stored.push(instance.pendingResultCount));
    instance.addPendingResult(reply);
    expect(stored).toEqual([1]);
    const handled = await instance.handleEvent({ event: wakeEvent(), attempt: 1 });
    expect(handled?.outcome).toMatchObject({ status: "ok", response: "The worker finished: the report is ready." });
    // The turn's commit carries the message showing the reply and the reply's removal, together.
    expect(handled?.commit.consumed).toEqual(["corr_1"]);
    expect(
      handled?.commit.changes?.some(
        (change) => change.type === "append" && String(change.message.data.content).startsWith("[async reply"),
      ),
    ).toBe(true);
    expect(scripted.calls).toHaveLength(1);
    const userMessages = env.conversation.messages.filter((message) => message.data.role === "user");
    expect(userMessages).toHaveLength(1);
    expect(String(userMessages[0]?.data.content)).toStartWith(
      "[async reply from agent worker/main to request corr_1, status ok]",
    );
    expect(instance.pendingResultCount).toBe(0);
  });

  it("ends at once, without calling the model, when nothing is waiting any more", async () => {
    const { scripted, instance } = instanceWith([{ text: "answered the user, and saw the reply" }]);
    instance.addPendingResult(reply);
    await instance.handleEvent({ event: userEvent("hello"), attempt: 1 });
    expect(instance.pendingResultCount).toBe(0);
    const handled = await instance.handleEvent({ event: wakeEvent(), attempt: 1 });
    expect(handled?.outcome).toMatchObject({ status: "ok", response: "", finishReason: "nothing_pending" });
    expect(scripted.calls).toHaveLength(1);
  });
});
