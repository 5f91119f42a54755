import { describe, expect, it } from "bun:test";
import { checkDelegation } from "../../../src/orchestrator/routing/call-chain.ts";

const members = new Set(["a", "b", "c", "d"]);

describe("checkDelegation", () => {
  it("appends the requester to the chain it forwards", () => {
    expect(checkDelegation({ callChain: [], requester: "a", target: "b", members, maxDepth: 8 })).toEqual({
      ok: true,
      chain: ["a"],
    });
    expect(checkDelegation({ callChain: ["a"], requester: "b", target: "c", members, maxDepth: 8 })).toEqual({
      ok: true,
      chain: ["a", "b"],
    });
  });

  it("does not repeat a requester that already ends the chain", () => {
    expect(checkDelegation({ callChain: ["a", "b"], requester: "b", target: "c", members, maxDepth: 8 })).toEqual({
      ok: true,
      chain: ["a", "b"],
    });
  });

  it("refuses a target outside the swarm with E_AGENT_NOT_FOUND", () => {
    expect(checkDelegation({ callChain: [], requester: "a", target: "zed", members, maxDepth: 8 })).toMatchObject({
      ok: false,
      code: "E_AGENT_NOT_FOUND",
    });
  });

  it("refuses A -> B -> A and longer cycles with E_CIRCULAR_CALL_DETECTED", () => {
    expect(checkDelegation({ callChain: ["a"], requester: "b", target: "a", members, maxDepth: 8 })).toMatchObject({
      ok: false,
      code: "E_CIRCULAR_CALL_DETECTED",
    });
    expect(
      checkDelegation({ callChain: ["a", "b", "c"], requester: "d", target: "b", members, maxDepth: 8 }),
    ).toMatchObject({ ok: false, code: "E_CIRCULAR_CALL_DETECTED" });
    expect(checkDelegation({ callChain: [], requester: "a", target: "a", members, maxDepth: 8 })).toMatchObject({
      ok: false,
      code: "E_CIRCULAR_CALL_DETECTED",
    });
  });

  it("lets a fire-and-forget send go back up the chain", () => {
    expect(
      checkDelegation({ callChain: ["a"], requester: "b", target: "a", members, maxDepth: 8, checkCycle: false }),
    ).toEqual({ ok: true, chain: ["a", "b"] });
  });

  it("refuses chains longer than maxDelegationDepth with E_DELEGATION_DEPTH_EXCEEDED", () => {
    expect(checkDelegation({ callChain: ["a"], requester: "b", target: "c", members, maxDepth: 2 })).toMatchObject({
      ok: true,
    });
    expect(checkDelegation({ callChain: ["a", "b"], requester: "c", target: "d", members, maxDepth: 2 })).toMatchObject(
      { ok: false, code: "E_DELEGATION_DEPTH_EXCEEDED" },
    );
  });
});
