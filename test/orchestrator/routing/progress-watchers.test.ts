/** ProgressWatchers: progress goes to the watchers of its trace only, until each stops; a throwing one harms no other. */
import { describe, expect, it } from "bun:test";
import { ProgressWatchers } from "../../../src/orchestrator/routing/progress-watchers.ts";
import type { TurnProgress } from "../../../src/protocol/turn-progress.ts";

const progress = (traceId: string, name: string): TurnProgress => ({
  kind: "tool",
  phase: "started",
  agent: "a",
  instanceKey: "k",
  traceId,
  turnId: "t",
  name,
  toolCallId: name,
});

describe("ProgressWatchers", () => {
  it("hands a trace's progress to its watchers only, until each stops watching", () => {
    const watchers = new ProgressWatchers();
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = watchers.watch(
      "trace-1",
      (record) => void first.push(record.kind === "tool" ? record.name : record.kind),
    );
    watchers.watch("trace-2", (record) => void second.push(record.kind === "tool" ? record.name : record.kind));
    watchers.watch("trace-1", () => {
      throw new Error("a listener bug");
    });
    watchers.publish(progress("trace-1", "a"));
    watchers.publish(progress("trace-2", "b"));
    stopFirst();
    watchers.publish(progress("trace-1", "c"));
    watchers.publish(progress("trace-3", "d"));
    expect(first).toEqual(["a"]);
    expect(second).toEqual(["b"]);
  });
});
