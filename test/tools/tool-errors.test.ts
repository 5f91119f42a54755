import { describe, expect, it } from "bun:test";
import {
  describeThrown,
  helpUrlFor,
  ToolFault,
  toolError,
  truncateErrorMessage,
  TRUNCATION_SUFFIX,
} from "../../src/tools/tool-errors.ts";

describe("truncateErrorMessage (seed 003 §8.4)", () => {
  it("keeps a message within the limit unchanged", () => {
    expect(truncateErrorMessage("short", 10)).toBe("short");
    expect(truncateErrorMessage("x".repeat(10), 10)).toBe("x".repeat(10));
  });

  it("cuts a longer message to exactly the limit, ending in '... (truncated)'", () => {
    const cut = truncateErrorMessage("x".repeat(1500), 1000);
    expect(cut.length).toBe(1000);
    expect(cut.endsWith(TRUNCATION_SUFFIX)).toBe(true);
    expect(cut).toBe("x".repeat(1000 - TRUNCATION_SUFFIX.length) + TRUNCATION_SUFFIX);
  });

  it("never exceeds a limit smaller than the suffix", () => {
    expect(truncateErrorMessage("abcdefghijklmnopqrstuvwxyz", 5).length).toBe(5);
  });
});

describe("toolError", () => {
  it("builds an error result with a default name and a help URL for the code", () => {
    const result = toolError({ code: "E_TOOL_TIMEOUT", message: "late" });
    expect(result).toEqual({
      status: "error",
      error: {
        code: "E_TOOL_TIMEOUT",
        name: "ToolTimeoutError",
        message: "late",
        helpUrl: "https://docs.goondan.ai/errors/E_TOOL_TIMEOUT",
      },
    });
  });

  it("applies the default limit of 1000 characters to message and suggestion", () => {
    const result = toolError({ code: "E_TOOL", message: "m".repeat(3000), suggestion: "s".repeat(3000) });
    if (result.status !== "error") throw new Error("expected an error result");
    expect(result.error.message.length).toBe(1000);
    expect(result.error.suggestion?.length).toBe(1000);
  });

  it("applies a tool's own errorMessageLimit", () => {
    const result = toolError({ code: "E_TOOL", message: "m".repeat(300) }, { limit: 100 });
    if (result.status !== "error") throw new Error("expected an error result");
    expect(result.error.message.length).toBe(100);
  });

  it("points foreign codes at the E_TOOL help page", () => {
    expect(helpUrlFor("ENOENT")).toBe("https://docs.goondan.ai/errors/E_TOOL");
    expect(helpUrlFor("E_SELF_RESTART_INVALID_BUNDLE")).toBe(
      "https://docs.goondan.ai/errors/E_SELF_RESTART_INVALID_BUNDLE",
    );
  });
});

describe("describeThrown", () => {
  it("keeps the error's name, code and suggestion", () => {
    expect(describeThrown(new ToolFault("E_X", "boom", { suggestion: "try y" }))).toEqual({
      code: "E_X",
      name: "ToolFault",
      message: "boom",
      suggestion: "try y",
    });
    const coded = Object.assign(new RangeError("too far"), { code: 42 });
    expect(describeThrown(coded)).toEqual({ code: "42", name: "RangeError", message: "too far" });
  });

  it("uses E_TOOL for an error without a code", () => {
    expect(describeThrown(new Error("plain")).code).toBe("E_TOOL");
  });

  it("describes non-Error values clearly", () => {
    expect(describeThrown("text")).toMatchObject({ code: "E_TOOL", name: "NonErrorThrown" });
    expect(describeThrown("text").message).toContain('"text"');
    expect(describeThrown(undefined).message).toContain("undefined");
    expect(describeThrown(10n).message).toContain("10n");
    expect(describeThrown(Symbol("s")).message).toContain("Symbol(s)");
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(describeThrown(cycle).name).toBe("NonErrorThrown");
  });

  it("survives hostile values whose properties throw", () => {
    const hostile = new Proxy(new Error("x"), {
      get() {
        throw new Error("gotcha");
      },
    });
    expect(describeThrown(hostile).code).toBe("E_TOOL");
  });
});

describe("toolError labels", () => {
  it("cuts absurdly long codes and names, which a hostile error could carry", () => {
    const result = toolError({ code: "E".repeat(10_000), name: "N".repeat(10_000), message: "m" });
    if (result.status !== "error") throw new Error("expected an error result");
    expect(result.error.code.length).toBe(200);
    expect(result.error.name.length).toBe(200);
  });
});
