/**
 * A step the store refuses to commit (the disk is full, the orchestrator is gone): its tool calls never run, the turn
 * ends `unsaved` rather than answering, and the instance refuses to go on from a conversation the store lacks. A step
 * whose calls are all idempotent (or only ask the orchestrator) runs them without waiting for the commit's answer,
 * and still ends unsaved when the store refuses it.
 */
import { describe, expect, it } from "bun:test";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { SystemError } from "../../src/shared/errors.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { testEnv, userEvent } from "./support/test-env.ts";

const item = { name: "disk__wipe", description: "wipes", parameters: { type: "object", properties: {} } };

describe("a step the store refuses", () => {
  it("runs none of its tool calls and ends the turn unsaved with the store's code", async () => {
    const scripted = scriptedModel([{ toolCalls: [{ id: "c1", name: "disk__wipe" }] }]);
    const test = testEnv({ model: scripted.model });
    const runs: string[] = [];
    test.registerTool(item, () => void runs.push("wipe"));
    test.env.commit = () => Promise.reject(new SystemError("E_STORE_WRITE_FAILED", "database or disk is full"));

    const ending = await runTurn({ env: test.env, event: userEvent("wipe it") });
    expect(ending.type).toBe("unsaved");
    expect(ending.result).toMatchObject({
      status: "error",
      error: { code: "E_STORE_WRITE_FAILED", message: "database or disk is full" },
    });
    expect(runs).toEqual([]);
    expect(await test.committed()).toEqual([]);
  });

  it("ends the turn as usual for any other failure", async () => {
    const scripted = scriptedModel([{ toolCalls: [{ id: "c1", name: "disk__wipe" }] }]);
    const test = testEnv({ model: scripted.model });
    test.registerTool(item, () => "wiped");
    test.env.commit = () => Promise.reject(new Error("a bug"));
    const ending = await runTurn({ env: test.env, event: userEvent("wipe it") });
    expect(ending).toMatchObject({
      type: "completed",
      result: { status: "error", error: { code: "E_AGENT_TURN_FAILED" } },
    });
  });

  it("runs an idempotent step's calls without waiting for its commit, and still ends unsaved when it is refused", async () => {
    const scripted = scriptedModel([{ toolCalls: [{ id: "c1", name: "echo__say" }] }, { text: "said" }]);
    const test = testEnv({ model: scripted.model });
    const order: string[] = [];
    test.env.registry.register(
      { name: "echo__say", description: "says", parameters: { type: "object", properties: {} } },
      () => void order.push("tool ran"),
      { idempotent: true },
    );
    const answer = Promise.withResolvers<void>();
    test.env.commit = (_changes, options) => {
      order.push(`commit asked, sync ${options?.sync !== false}`);
      return answer.promise.then(() => {
        order.push("commit answered: refused");
        throw new SystemError("E_STORE_UNAVAILABLE", "database or disk is full");
      });
    };
    const ending = runTurn({ env: test.env, event: userEvent("say it") });
    await Bun.sleep(0);
    while (!order.includes("tool ran")) await Bun.sleep(1);
    answer.resolve();
    expect(await ending).toMatchObject({
      type: "unsaved",
      result: { status: "error", error: { code: "E_STORE_UNAVAILABLE" } },
    });
    expect(order).toEqual(["commit asked, sync false", "tool ran", "commit answered: refused"]);
  });
});
