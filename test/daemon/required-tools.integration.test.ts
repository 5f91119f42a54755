/**
 * An Agent's `requiredTools` holds without listing `required-tools-guard` (the public samples rely on it): a real
 * `goondan run` of a bundle whose Agent names two required tools reminds the model that answered without either,
 * and lets the turn end after one successful call of one of them.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";
import { runOnce } from "../helpers/run-once.ts";

const defer = useCleanups();
const bundle = new URL("../fixtures/bundles/required-tools-any", import.meta.url).pathname;

describe("requiredTools without a listed guard", () => {
  it("reminds a model that answered without a required tool, and one call of either ends the turn", async () => {
    const llm = await startLoopbackLlm({
      respond: (request) => {
        const last = request.body.messages.at(-1);
        if (last?.role === "tool") return { text: "delivered" };
        if (JSON.stringify(last?.content).includes("you must call one of these tools"))
          return { toolCalls: [{ name: "bash__exec", args: { command: "echo delivered" } }] };
        return { text: "here is the answer, without a tool" };
      },
    });
    defer(() => llm.close());
    const result = await runOnce({
      dir: bundle,
      env: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "sk-required" },
      input: "deliver something",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("delivered\n");
    expect(llm.requests.length).toBe(3);
    expect(JSON.stringify(llm.requests[1]!.body.messages.at(-1))).toContain("bash__exec, wait__seconds");
  }, 60_000);
});
