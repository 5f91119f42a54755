/**
 * publicRuntimeEvent: what of a runtime event leaves the agent child. Every secret value is redacted wherever it
 * stands in `data` (values, nested, keys) and in the error message; a data field over the bound becomes a marked
 * TruncatedValue with its size and a preview cut at a character boundary; small fields and events without data pass
 * unchanged.
 */
import { describe, expect, it } from "bun:test";
import type { ErrorInfo } from "../../src/protocol/error-info.ts";
import { boundedValue, publicRuntimeEvent } from "../../src/protocol/public-runtime-event.ts";
import type { JsonObject } from "../../src/shared/json.ts";

const SECRET = "sk-live-0123456789";

describe("publicRuntimeEvent", () => {
  it("redacts a secret that JSON escapes, and passes fields without a secret as they are", () => {
    const quoted = 'pa"ss\\word-42';
    const plain = { text: "nothing to hide", list: [1, 2, 3] };
    const event = publicRuntimeEvent<{ data?: JsonObject }>(
      { data: { args: { note: `uses ${quoted}` }, plain, gone: undefined as unknown as JsonObject } },
      { secrets: [quoted, SECRET] },
    );
    expect(event.data?.args).toEqual({ note: "uses [redacted]" });
    expect(event.data?.plain).toEqual(plain);
    expect(event.data?.gone).toBeNull();
    const unescaped = publicRuntimeEvent<{ data?: JsonObject }>({ data: { plain } }, { secrets: [SECRET] });
    expect(unescaped.data?.plain).toBe(plain);
  });

  it("redacts secret values in data, nested and in keys, and in the error message", () => {
    const event = publicRuntimeEvent<{ data?: JsonObject; error?: ErrorInfo }>(
      {
        data: { args: { command: `curl -H 'key: ${SECRET}'`, nested: [{ [SECRET]: SECRET }] } },
        error: { code: "E_X", message: `failed with ${SECRET}` },
      },
      { secrets: [SECRET] },
    );
    expect(JSON.stringify(event)).not.toContain(SECRET);
    expect(event.data).toEqual({
      args: { command: "curl -H 'key: [redacted]'", nested: [{ "[redacted]": "[redacted]" }] },
    });
    expect(event.error).toEqual({ code: "E_X", message: "failed with [redacted]" });
  });

  it("bounds each data field to maxBytes of JSON, marked with its size", () => {
    const event = publicRuntimeEvent({ data: { result: "é".repeat(100), small: 1 } }, { secrets: [], maxBytes: 50 });
    const result = event.data!.result as unknown as { truncated: boolean; bytes: number; preview: string };
    expect(result.truncated).toBe(true);
    expect(result.bytes).toBe(202);
    expect(result.preview.endsWith("…")).toBe(true);
    expect(new TextEncoder().encode(result.preview.slice(0, -1)).length).toBeLessThanOrEqual(50);
    expect(result.preview).not.toContain("\uFFFD");
    expect(event.data!.small).toBe(1);
  });

  it("passes an event without data or secrets unchanged", () => {
    const event = { error: { code: "E_X", message: "plain" } };
    expect(publicRuntimeEvent(event, { secrets: [] })).toBe(event);
    expect(boundedValue({ a: 1 })).toEqual({ a: 1 });
  });
});
