import { describe, expect, it } from "bun:test";
import { answerBudget, fitByBytes, jsonBytes, withinBudget } from "../../../src/cluster/answers/answer-budget.ts";

describe("fitByBytes", () => {
  const items = Array.from({ length: 10 }, (_, i) => ({ i, text: "x".repeat(90) }));
  const each = jsonBytes(items[0]) + 1;

  it("keeps the oldest that fit, in order, and says more remain", () => {
    const fitted = fitByBytes(items, 2 + each * 3, "oldest");
    expect(fitted.items.map((item) => item.i)).toEqual([0, 1, 2]);
    expect(fitted.more).toBe(true);
    expect(jsonBytes(fitted.items)).toBeLessThanOrEqual(2 + each * 3);
  });

  it("keeps the newest that fit, in order", () => {
    expect(fitByBytes(items, 2 + each * 2, "newest")).toEqual({ items: [items[8], items[9]] as never, more: true });
  });

  it("keeps all, and no more, when all fit; none when the first is too large", () => {
    expect(fitByBytes(items, 1_000_000, "oldest")).toEqual({ items, more: false });
    expect(fitByBytes(items, 10, "oldest")).toEqual({ items: [], more: true });
  });
});

describe("withinBudget", () => {
  it("passes an answer that fits and refuses one that does not with E_CLUSTER_ANSWER_TOO_LARGE, naming it", () => {
    expect(withinBudget({ answer: { a: 1 }, budget: 100, what: "a" })).toEqual({ a: 1 });
    let error: unknown;
    try {
      withinBudget({ answer: { text: "x".repeat(200) }, budget: 100, what: "node n2's instance table" });
    } catch (caught) {
      error = caught;
    }
    expect((error as { code?: string }).code).toBe("E_CLUSTER_ANSWER_TOO_LARGE");
    expect((error as Error).message).toContain("node n2's instance table");
  });

  it("leaves room below the server's max_payload for the answer's envelope", () => {
    expect(answerBudget()).toBeLessThan(1024 * 1024);
    expect(answerBudget(8 * 1024 * 1024)).toBeGreaterThan(7 * 1024 * 1024);
  });
});
