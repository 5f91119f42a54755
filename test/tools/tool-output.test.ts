import { describe, expect, it } from "bun:test";
import { capOutput, toJsonOutput } from "../../src/tools/tool-output.ts";

describe("toJsonOutput", () => {
  it("passes plain JSON through", () => {
    expect(toJsonOutput({ a: [1, "two", true, null], b: { c: 3 } })).toEqual({
      ok: true,
      value: { a: [1, "two", true, null], b: { c: 3 } },
    });
  });

  it("converts values that have a sensible JSON form", () => {
    expect(toJsonOutput(undefined)).toEqual({ ok: true, value: null });
    expect(toJsonOutput({ keep: 1, gone: undefined })).toEqual({ ok: true, value: { keep: 1 } });
    expect(toJsonOutput([undefined])).toEqual({ ok: true, value: [null] });
    expect(toJsonOutput(new Date("2026-01-01T00:00:00.000Z"))).toEqual({ ok: true, value: "2026-01-01T00:00:00.000Z" });
    expect(toJsonOutput(123n)).toEqual({ ok: true, value: "123" });
    expect(toJsonOutput([Number.NaN, Number.NEGATIVE_INFINITY])).toEqual({ ok: true, value: [null, null] });
    expect(toJsonOutput(new Map([["k", new Set([1])]]))).toEqual({ ok: true, value: { k: [1] } });
    expect(toJsonOutput(new Uint8Array([1, 2]))).toEqual({ ok: true, value: [1, 2] });
    expect(toJsonOutput({ toJSON: () => "custom" })).toEqual({ ok: true, value: "custom" });
    expect(toJsonOutput(Object.assign(new Error("e"), { code: "E_X" }))).toEqual({
      ok: true,
      value: { name: "Error", message: "e", code: "E_X" },
    });
  });

  it("keeps a repeated (non-circular) reference", () => {
    const shared = { x: 1 };
    expect(toJsonOutput({ a: shared, b: shared })).toEqual({ ok: true, value: { a: { x: 1 }, b: { x: 1 } } });
  });

  it("keeps a '__proto__' key as data, not as a prototype", () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const result = toJsonOutput(input);
    if (!result.ok) throw new Error("expected ok");
    expect(Object.keys(result.value as object)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("fails clearly for functions, symbols, cycles and absurd depth, naming the path", () => {
    expect(toJsonOutput({ f: () => 1 })).toEqual({
      ok: false,
      message: "the tool output is not JSON: $.f is a function",
    });
    expect(toJsonOutput([Symbol("s")])).toEqual({
      ok: false,
      message: "the tool output is not JSON: $[0] is a symbol",
    });
    const cycle: Record<string, unknown> = {};
    cycle.inner = { back: cycle };
    expect(toJsonOutput(cycle)).toEqual({
      ok: false,
      message: "the tool output is not JSON: $.inner.back is a circular reference",
    });
    let deep: unknown = 1;
    for (let index = 0; index < 10_000; index++) deep = [deep];
    const result = toJsonOutput(deep);
    expect(result.ok).toBe(false);
  });

  it("fails clearly when a getter throws", () => {
    const result = toJsonOutput({
      get broken() {
        throw new Error("getter exploded");
      },
    });
    expect(result).toEqual({ ok: false, message: "the tool output could not be converted to JSON: getter exploded" });
  });
});

describe("capOutput", () => {
  it("keeps output under the cap", () => {
    expect(capOutput({ a: "x".repeat(100) }, 1024)).toEqual({ a: "x".repeat(100) });
  });

  it("cuts a long string with a clear marker, suffix included within the limit", () => {
    const cut = capOutput("z".repeat(5000), 1000) as string;
    expect(cut.startsWith("z".repeat(900))).toBe(true);
    expect(cut.endsWith("... (truncated: 5002 bytes in all)")).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(cut))).toBe(1000);
  });

  it("reports the original's JSON size and stays within the limit even when escaping inflates the text", () => {
    const huge = toJsonOutput("x".repeat(5_000_000), { maxBytes: 4096 });
    if (!huge.ok) throw new Error("expected ok");
    expect(String(huge.value).endsWith("(truncated: 5000002 bytes in all)")).toBe(true);
    const quotes = capOutput('"'.repeat(10_000), 1000);
    expect(Buffer.byteLength(JSON.stringify(quotes))).toBeLessThanOrEqual(1000);
    expect(String(quotes)).toContain(`(truncated: ${JSON.stringify('"'.repeat(10_000)).length} bytes in all)`);
  });

  it("leaves an already capped value unchanged when capped again", () => {
    const once = capOutput("q".repeat(50_000), 2000);
    expect(capOutput(once, 2000)).toBe(once);
    const marker = capOutput({ rows: "r".repeat(50_000) }, 2000);
    expect(capOutput(marker, 2000)).toEqual(marker);
  });

  it("replaces a large structure by a truncation marker with a preview, within the limit", () => {
    const marker = capOutput(
      { rows: Array.from({ length: 1000 }, (_, index) => ({ index, text: "row" })) },
      2048,
    ) as Record<string, unknown>;
    expect(marker.truncated).toBe(true);
    expect(typeof marker.totalBytes).toBe("number");
    expect(String(marker.preview).startsWith('{"rows":[{"index":0')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(marker))).toBeLessThanOrEqual(2048);
  });

  it("does not split a multi-byte character", () => {
    const cut = capOutput("한".repeat(1000), 1000) as string;
    expect(cut).not.toContain("\uFFFD");
  });
});
