import { describe, expect, it } from "bun:test";
import { helpUrlFor } from "../../../src/tools/tool-errors.ts";

/** Every code the orchestrator answers a requesting agent with reaches the model as an agents__* tool error. */
const REQUESTER_ERROR_CODES = [
  "E_AGENT_CRASHED",
  "E_AGENT_REQUEST_TIMEOUT",
  "E_AGENT_TURN_FAILED",
  "E_AGENT_NOT_FOUND",
  "E_CIRCULAR_CALL_DETECTED",
  "E_DELEGATION_DEPTH_EXCEEDED",
  "E_ORCHESTRATOR_STOPPING",
];

describe("help links of the errors a requesting agent receives", () => {
  it("point at the page of the error's own code, not at E_TOOL", () => {
    for (const code of REQUESTER_ERROR_CODES) expect(helpUrlFor(code)).toBe(`https://docs.goondan.ai/errors/${code}`);
  });

  it("still send foreign codes such as ENOENT to E_TOOL's page", () => {
    expect(helpUrlFor("ENOENT")).toBe("https://docs.goondan.ai/errors/E_TOOL");
  });
});
