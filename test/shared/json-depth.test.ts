import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { jsonTextDepth, jsonValueDepth, MAX_JSON_DEPTH } from "../../src/shared/json-depth.ts";

const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);

describe("jsonTextDepth", () => {
  it("counts objects and arrays, and skips brackets inside strings and escapes", () => {
    expect(jsonTextDepth("1")).toBe(0);
    expect(jsonTextDepth('{"a":[{"b":"]]]{{{"}]}')).toBe(3);
    expect(jsonTextDepth('["\\"[[[", {}]')).toBe(2);
  });

  it("stops at the limit plus one, however deep the text goes, without recursion", () => {
    expect(jsonTextDepth(nested(150_000))).toBe(MAX_JSON_DEPTH + 1);
    expect(jsonTextDepth(nested(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH);
  });

  it("agrees with jsonValueDepth on every JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        expect(jsonTextDepth(JSON.stringify(value))).toBe(jsonValueDepth(value));
      }),
    );
  });
});

describe("jsonValueDepth", () => {
  it("walks a value nested far deeper than the stack allows and stops at the limit plus one", () => {
    let value: unknown = {};
    for (let index = 0; index < 200_000; index++) value = { next: value };
    expect(jsonValueDepth(value)).toBe(MAX_JSON_DEPTH + 1);
    expect(jsonValueDepth({ a: [1, { b: null }] })).toBe(3);
    expect(jsonValueDepth("text")).toBe(0);
  });
});
