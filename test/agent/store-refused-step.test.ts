/**
 * A step the store refuses to commit (the disk is full, the orchestrator is gone): its tool calls never run, the turn
 * ends `unsaved` rather than answering, and the instance refuses to go on from a conversation the store lacks.
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
});
