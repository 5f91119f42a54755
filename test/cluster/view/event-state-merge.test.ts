import { describe, expect, it } from "bun:test";
import { furthestEventState } from "../../../src/cluster/view/event-state-merge.ts";

describe("furthestEventState", () => {
  it("takes an answered state over running over accepted, keeping the node that knows it, and none when no node knows it", () => {
    const accepted = { eventId: "e", state: "accepted" as const };
    const running = { eventId: "e", state: "running" as const };
    const failed = { eventId: "e", state: "error", status: "error" } as never;
    expect(
      furthestEventState([
        { node: "n1", value: accepted },
        { node: "n2", value: running },
      ]),
    ).toEqual({ ...running, node: "n2" });
    expect(
      furthestEventState([
        { node: "n1", value: failed },
        { node: "n2", value: running },
      ])?.node,
    ).toBe("n1");
    expect(furthestEventState([{ node: "n1", value: undefined }])).toBeUndefined();
  });
});
