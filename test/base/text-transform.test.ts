import { beforeAll, describe, expect, it } from "bun:test";
import { changeCase } from "../../src/base/tools/text-transform.ts";
import { baseTools, errorOf, okOutput, type BaseToolHarness } from "./base-tools.ts";

let tools: BaseToolHarness;

beforeAll(async () => {
  tools = await baseTools({ config: { "text-transform": { regexBudgetMs: 300 } } });
});

describe("text-transform__replace", () => {
  it("replaces every occurrence of a plain string, literally", async () => {
    expect(
      okOutput(await tools.call("text-transform__replace", { text: "a-b-c", pattern: "-", replacement: "$&+" })),
    ).toEqual({ text: "a$&+b$&+c", replacements: 2 });
    expect(
      okOutput(
        await tools.call("text-transform__replace", { text: "a-b-c", pattern: "-", replacement: "+", all: false }),
      ),
    ).toEqual({ text: "a+b-c", replacements: 1 });
  });

  it("replaces with a regular expression, groups and flags", async () => {
    expect(
      okOutput(
        await tools.call("text-transform__replace", {
          text: "John Smith, jane doe",
          pattern: "(\\w+) (\\w+)",
          replacement: "$2 $1",
          regex: true,
        }),
      ),
    ).toEqual({ text: "Smith John, doe jane", replacements: 2 });
    expect(
      okOutput(
        await tools.call("text-transform__replace", {
          text: "Cat cat",
          pattern: "cat",
          replacement: "dog",
          regex: true,
          flags: "i",
          all: false,
        }),
      ).text,
    ).toBe("dog cat");
    expect(
      okOutput(
        await tools.call("text-transform__replace", {
          text: "2026-01-02",
          pattern: "(?<y>\\d+)-(?<m>\\d+)",
          replacement: "$<m>/$<y>",
          regex: true,
        }),
      ).text,
    ).toBe("01/2026-02");
  });

  it("stops a catastrophic regular expression instead of freezing the agent", async () => {
    const started = Date.now();
    const error = errorOf(
      await tools.call("text-transform__replace", {
        text: `${"a".repeat(40)}b`,
        pattern: "^(a+)+$",
        replacement: "x",
        regex: true,
      }),
    );
    expect(error.code).toBe("E_TEXT_REGEX_TIMEOUT");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("refuses an invalid regular expression and unknown flags", async () => {
    expect(
      errorOf(await tools.call("text-transform__replace", { text: "x", pattern: "(", replacement: "", regex: true }))
        .code,
    ).toBe("E_TEXT_REGEX_INVALID");
    expect(
      errorOf(
        await tools.call("text-transform__replace", {
          text: "x",
          pattern: "x",
          replacement: "",
          regex: true,
          flags: "g",
        }),
      ).code,
    ).toBe("E_TOOL_INVALID_ARGS");
  });

  it("refuses a replacement that would blow up the text", async () => {
    expect(
      errorOf(
        await tools.call("text-transform__replace", {
          text: "a".repeat(100_000),
          pattern: "a",
          replacement: "b".repeat(100),
        }),
      ).code,
    ).toBe("E_TEXT_TOO_LONG");
    expect(
      errorOf(
        await tools.call("text-transform__replace", {
          text: "a".repeat(100_000),
          pattern: "a",
          replacement: "b".repeat(100),
          regex: true,
        }),
      ).code,
    ).toMatch(/^E_TEXT_REGEX/); // _TIMEOUT when the machine is loaded
  });
});

describe("text-transform slice, split, join, trim", () => {
  it("slices by characters, not UTF-16 units, with negative indexes", async () => {
    expect(okOutput(await tools.call("text-transform__slice", { text: "a😀bc", start: 1, end: 2 })).text).toBe("😀");
    expect(okOutput(await tools.call("text-transform__slice", { text: "hello", start: -3 })).text).toBe("llo");
  });

  it("splits by a string or a regular expression, with a limit", async () => {
    expect(okOutput(await tools.call("text-transform__split", { text: "a,b,c", separator: "," }))).toEqual({
      parts: ["a", "b", "c"],
      count: 3,
    });
    expect(
      okOutput(await tools.call("text-transform__split", { text: "a, b;c", separator: "[,;]\\s*", regex: true })).parts,
    ).toEqual(["a", "b", "c"]);
    expect(
      okOutput(await tools.call("text-transform__split", { text: "a,b,c", separator: ",", limit: 2 })).parts,
    ).toEqual(["a", "b"]);
  });

  it("joins parts", async () => {
    expect(okOutput(await tools.call("text-transform__join", { parts: ["a", "b"], separator: ", " })).text).toBe(
      "a, b",
    );
    expect(errorOf(await tools.call("text-transform__join", { parts: ["a", { b: 1 }] })).code).toBe(
      "E_TOOL_INVALID_ARGS",
    );
  });

  it("trims whitespace or given characters from either side", async () => {
    expect(okOutput(await tools.call("text-transform__trim", { text: "  x  " })).text).toBe("x");
    expect(okOutput(await tools.call("text-transform__trim", { text: "  x  ", side: "start" })).text).toBe("x  ");
    expect(
      okOutput(await tools.call("text-transform__trim", { text: "--x--", characters: "-", side: "end" })).text,
    ).toBe("--x");
  });
});

describe("text-transform__case", () => {
  it("converts between cases", () => {
    expect(changeCase("hello world", "upper")).toBe("HELLO WORLD");
    expect(changeCase("Hello World", "lower")).toBe("hello world");
    expect(changeCase("hello wide world", "title")).toBe("Hello Wide World");
    expect(changeCase("parseHTTPResponse code", "snake")).toBe("parse_http_response_code");
    expect(changeCase("Hello World_again", "kebab")).toBe("hello-world-again");
    expect(changeCase("hello-world again", "camel")).toBe("helloWorldAgain");
  });

  it("is reachable as a tool and refuses unknown cases at validation", async () => {
    expect(okOutput(await tools.call("text-transform__case", { text: "a b", to: "snake" })).text).toBe("a_b");
    expect(errorOf(await tools.call("text-transform__case", { text: "a b", to: "pascal" })).code).toBe(
      "E_TOOL_INVALID_ARGS",
    );
  });
});
