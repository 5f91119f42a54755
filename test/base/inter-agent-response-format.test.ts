/** inter-agent-response-format rewrites another agent's async reply, as the model sees it, in upstream's shape, once. */
import { describe, expect, it } from "bun:test";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { FORMATTED_KEY } from "../../src/base/extensions/inter-agent-response-format.ts";
import { messageAsText } from "../../src/base/extensions/message-compaction.ts";
import { userEvent } from "../agent/support/test-env.ts";
import { failedReply } from "../../src/protocol/turn-outcome.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { baseExtensionUse, withBaseExtensions } from "./extension-harness.ts";

describe("inter-agent-response-format", () => {
  it("shows an async reply as [inter-agent response] from -> to status requestId, then the reply", async () => {
    const scripted = scriptedModel([{ text: "noted" }, { text: "again" }]);
    const harness = await withBaseExtensions({
      model: scripted.model,
      uses: [baseExtensionUse("inter-agent-response-format")],
    });
    harness.env.pendingResults?.add({
      correlationId: "corr_7",
      status: "ok",
      agent: "researcher",
      instanceKey: "k",
      eventId: "evt_7",
      turnId: "turn_7",
      finishReason: "stop",
      response: "The answer is 42.\nSources: none.",
    });
    harness.env.pendingResults?.add(
      failedReply({
        correlationId: "corr_8",
        agent: "slowpoke",
        instanceKey: "k",
        error: { code: "E_AGENT_REQUEST_TIMEOUT", message: "no reply within 1000 ms" },
      }),
    );
    await runTurn({ env: harness.env, event: userEvent("any news?") });
    const shown = JSON.stringify(scripted.calls[0]?.prompt);
    expect(shown).toContain(
      JSON.stringify(
        "[inter-agent response] researcher -> assistant status=ok requestId=corr_7\nThe answer is 42.\nSources: none.",
      ).slice(1, -1),
    );
    expect(shown).toContain(
      JSON.stringify(
        "[inter-agent response] slowpoke -> assistant status=timeout requestId=corr_8\nerror(AGENT_REQUEST_TIMEOUT): no reply within 1000 ms",
      ).slice(1, -1),
    );
    const formatted = (await harness.committed()).filter((message) => message.metadata[FORMATTED_KEY] === true);
    expect(formatted).toHaveLength(2);
    expect(messageAsText(formatted[0]!)).toStartWith("[inter-agent response] researcher");
    const before = harness.env.conversation.messages.length;
    await runTurn({ env: harness.env, event: userEvent("and now?") });
    expect(harness.env.conversation.messages.length).toBe(before + 2);
  });
});
