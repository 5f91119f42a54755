import { describe, expect, it } from "bun:test";
import { fakeRuntime } from "../tools/helpers.ts";
import { baseTools, errorOf, okOutput } from "./base-tools.ts";

describe("self-restart__request", () => {
  it("asks the runtime to restart and says it happens after this turn", async () => {
    const { runtime, calls } = fakeRuntime({ restart: () => ({ accepted: true, issues: [] }) });
    const tools = await baseTools({ context: { runtime } });
    const output = okOutput(await tools.call("self-restart__request", { reason: "new tool added" }));
    expect(output.accepted).toBe(true);
    expect(String(output.note)).toContain("after this turn");
    expect(calls).toEqual([{ method: "restart", options: { reason: "new tool added" } }]);
  });

  it("returns every validation issue of an invalid bundle to the model (E_SELF_RESTART_INVALID_BUNDLE)", async () => {
    const issues = [
      {
        code: "E_CONFIG_REF_NOT_FOUND",
        path: "goondan.yaml#3.spec.tools[1]",
        message: "Tool/echo not found; defined tools: bash",
      },
      { code: "E_CONFIG_SCHEMA_INVALID", path: "goondan.yaml#1.spec.model", message: "expected a string, got number" },
    ];
    const { runtime } = fakeRuntime({ restart: () => ({ accepted: false, issues }) });
    const tools = await baseTools({ context: { runtime } });
    const error = errorOf(await tools.call("self-restart__request", { reason: "try" }));
    expect(error.code).toBe("E_SELF_RESTART_INVALID_BUNDLE");
    for (const issue of issues) {
      expect(error.message).toContain(issue.path);
      expect(error.message).toContain(issue.message);
      expect(error.message).toContain(issue.code);
    }
    expect(error.suggestion).toContain("self-restart__request");
  });

  it("takes the reason as optional, as the public Goondan tool does, and records a default", async () => {
    const { runtime, calls } = fakeRuntime({ restart: () => ({ accepted: true, issues: [] }) });
    const tools = await baseTools({ context: { runtime } });
    expect(okOutput(await tools.call("self-restart__request", {})).reason).toBe("requested by the agent");
    expect(calls).toEqual([{ method: "restart", options: { reason: "requested by the agent" } }]);
  });
});
