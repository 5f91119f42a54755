import { describe, expect, it } from "bun:test";
import {
  formatClusterCursor,
  mergeRuntimeEvents,
  parseClusterCursor,
} from "../../../src/cluster/view/runtime-events-merge.ts";
import type { RuntimeEvent } from "../../../src/protocol/runtime-event.ts";
import type { StoredRuntimeEvent } from "../../../src/store/store.ts";

function row(cursor: number, at: string, type: RuntimeEvent["type"] = "turn.started"): StoredRuntimeEvent {
  return {
    cursor,
    event: {
      type,
      at: `2026-11-25T10:00:${at}Z`,
      agent: "worker",
      instanceKey: "w-1",
      traceId: "t".repeat(32),
      spanId: "s",
    },
  };
}

describe("mergeRuntimeEvents", () => {
  it("merges every node's events in time order, each naming its node", () => {
    const merged = mergeRuntimeEvents({
      answers: [
        { node: "n2", value: [row(7, "01.000"), row(8, "04.000")] },
        { node: "n1", value: [row(3, "02.000"), row(4, "03.000")] },
      ],
      after: {},
    });
    expect(merged.events.map((event) => `${event.node} ${event.at.slice(17, 19)}`)).toEqual([
      "n2 01",
      "n1 02",
      "n1 03",
      "n2 04",
    ]);
    expect(merged.cursor).toEqual({ n1: 4, n2: 8 });
  });

  it("orders events of the same instant by node, then by cursor", () => {
    const merged = mergeRuntimeEvents({
      answers: [
        { node: "n2", value: [row(1, "01.000")] },
        { node: "n1", value: [row(9, "01.000"), row(10, "01.000")] },
      ],
      after: {},
    });
    expect(merged.events.map((event) => event.node)).toEqual(["n1", "n1", "n2"]);
  });

  it("options.limit keeps the newest N of the merge, oldest first, and every node's cursor moves past what it sent", () => {
    const merged = mergeRuntimeEvents({
      answers: [
        { node: "n1", value: [row(1, "01.000"), row(2, "05.000")] },
        { node: "n2", value: [row(1, "02.000"), row(2, "03.000")] },
      ],
      after: {},
      limit: 2,
    });
    expect(merged.events.map((event) => `${event.node} ${event.at.slice(17, 19)}`)).toEqual(["n2 03", "n1 05"]);
    expect(merged.cursor).toEqual({ n1: 2, n2: 2 });
  });

  it("options.after: a node that did not answer keeps its position; one that sent nothing new keeps it too", () => {
    const merged = mergeRuntimeEvents({
      answers: [
        { node: "n1", value: [row(12, "09.000")] },
        { node: "n2", value: [] },
      ],
      after: { n1: 10, n2: 40, n3: 5 },
    });
    expect(merged.cursor).toEqual({ n1: 12, n2: 40, n3: 5 });
  });
});

describe("mergeRuntimeEvents with a node's answer cut to fit", () => {
  it("read forward, ends the page at the cut node's last event, and every cursor stops there", () => {
    const merged = mergeRuntimeEvents({
      answers: [
        { node: "n1", value: [row(1, "01.000"), row(2, "03.000")], more: true },
        { node: "n2", value: [row(5, "02.000"), row(6, "04.000")] },
      ],
      after: { n2: 4 },
    });
    expect(merged.events.map((event) => `${event.node} ${event.at.slice(17, 19)}`)).toEqual([
      "n1 01",
      "n2 02",
      "n1 03",
    ]);
    expect(merged.cursor).toEqual({ n1: 2, n2: 5 });
    expect(merged.more).toBe(true);
  });

  it("newest first (limit), starts the page at the cut node's oldest event, so nothing is missing from its middle", () => {
    const merged = mergeRuntimeEvents({
      answers: [
        { node: "n1", value: [row(8, "05.000"), row(9, "07.000")], more: true },
        { node: "n2", value: [row(1, "02.000"), row(2, "06.000")] },
      ],
      after: {},
      limit: 10,
    });
    expect(merged.events.map((event) => `${event.node} ${event.at.slice(17, 19)}`)).toEqual([
      "n1 05",
      "n2 06",
      "n1 07",
    ]);
    expect(merged.more).toBe(false);
  });
});

describe("cluster cursor", () => {
  it("reads what it writes, nodes in name order", () => {
    const text = formatClusterCursor({ n2: 40, "node.a_1-x": 12 });
    expect(text).toBe("n2:40,node.a_1-x:12");
    expect(parseClusterCursor(text)).toEqual({ n2: 40, "node.a_1-x": 12 });
  });

  it("takes 0 or nothing as the start", () => {
    expect(parseClusterCursor("0")).toEqual({});
    expect(parseClusterCursor("")).toEqual({});
    expect(formatClusterCursor({})).toBe("0");
  });

  it("refuses a cursor that is not node:position pairs, naming the expected form", () => {
    for (const bad of ["12", "n1:", "n1:x", "n1:1,,n2:2", "n 1:3"])
      expect(() => parseClusterCursor(bad)).toThrow("n1:12,n2:40");
  });
});
