import { describe, expect, it } from "bun:test";
import { helpUrlFor } from "../../../src/tools/tool-errors.ts";

/** Every code the orchestrator answers a requesting agent with reaches the model as an agents__* tool error. */
const REQUESTER_ERROR_CODES = [
  "AGENT_CRASHED",
  "AGENT_REQUEST_TIMEOUT",
  "AGENT_TURN_FAILED",
  "AGENT_NOT_FOUND",
  "CIRCULAR_CALL_DETECTED",
  "DELEGATION_DEPTH_EXCEEDED",
  "ORCHESTRATOR_STOPPING",
];

describe("help links of the errors a requesting agent receives", () => {
  it("point at the page of the error's own code, not at E_TOOL", () => {
    for (const code of REQUESTER_ERROR_CODES) expect(helpUrlFor(code)).toBe(`https://docs.goondan.ai/errors/${code}`);
  });

  it("still send foreign codes such as ENOENT to E_TOOL's page", () => {
    expect(helpUrlFor("ENOENT")).toBe("https://docs.goondan.ai/errors/E_TOOL");
  });
});
