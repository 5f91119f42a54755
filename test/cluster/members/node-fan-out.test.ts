import { describe, expect, it } from "bun:test";
import { fanOut } from "../../../src/cluster/members/node-fan-out.ts";

describe("fanOut", () => {
  it("answers this node locally, asks the others once each, and names every node that did not answer with why", async () => {
    const asked: string[] = [];
    const result = await fanOut({
      self: "n1",
      nodes: ["n1", "n2", "n3", "n4", "n2"],
      local: async () => "local",
      remote: async (node) => {
        asked.push(node);
        if (node === "n2") return { status: "ok", value: "from n2" };
        if (node === "n3") return { status: "timeout" };
        return { status: "no_responders" };
      },
    });
    expect(asked.sort()).toEqual(["n2", "n3", "n4"]);
    expect(result.answers).toEqual([
      { node: "n1", value: "local" },
      { node: "n2", value: "from n2" },
    ]);
    expect(result.unanswered).toEqual([
      { node: "n3", status: "timeout" },
      { node: "n4", status: "no_responders" },
    ]);
  });

  it("names this node as failed when its own read throws, and still gives the others' answers", async () => {
    const result = await fanOut({
      self: "n1",
      nodes: ["n1", "n2"],
      local: async () => {
        throw new Error("store closed");
      },
      remote: async () => ({ status: "ok", value: 2 }),
    });
    expect(result).toEqual({ answers: [{ node: "n2", value: 2 }], unanswered: [{ node: "n1", status: "failed" }] });
  });
});
