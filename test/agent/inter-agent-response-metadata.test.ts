/** An async reply shown to the model carries, as data, what it answers: the public `__goondanInterAgentResponse` metadata. */
import { describe, expect, it } from "bun:test";
import { INTER_AGENT_RESPONSE_KEY, runTurn } from "../../src/agent/loop/run-turn.ts";
import { failedReply } from "../../src/protocol/turn-outcome.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { testEnv, userEvent } from "./support/test-env.ts";

describe("async reply messages", () => {
  it("say who answered which request, with what status, in their metadata", async () => {
    const harness = testEnv({ model: scriptedModel([{ text: "thanks" }]).model });
    harness.env.pendingResults?.add({
      correlationId: "corr_1",
      status: "ok",
      agent: "researcher",
      instanceKey: "k1",
      eventId: "evt_1",
      turnId: "turn_1",
      finishReason: "stop",
      response: "found it",
    });
    harness.env.pendingResults?.add(
      failedReply({
        correlationId: "corr_2",
        agent: "slowpoke",
        instanceKey: "k2",
        error: { code: "E_AGENT_REQUEST_TIMEOUT", message: "no reply" },
      }),
    );
    await runTurn({ env: harness.env, event: userEvent("any news?") });
    const replies = harness.env.conversation.messages.filter(
      (message) => message.metadata[INTER_AGENT_RESPONSE_KEY] !== undefined,
    );
    expect(replies.map((message) => message.metadata[INTER_AGENT_RESPONSE_KEY])).toEqual([
      expect.objectContaining({
        kind: "inter_agent_response",
        version: 1,
        requestId: "corr_1",
        fromAgentId: "researcher",
        fromInstanceKey: "k1",
        toAgentId: "assistant",
        async: true,
        status: "ok",
      }),
      expect.objectContaining({
        requestId: "corr_2",
        fromAgentId: "slowpoke",
        status: "timeout",
        errorCode: "AGENT_REQUEST_TIMEOUT",
        errorMessage: "no reply",
      }),
    ]);
  });
});
