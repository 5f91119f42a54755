/**
 * Numeric parameters accept any number, as the public tools do: a fraction is rounded where an integer is
 * needed, and a value out of range is brought within it instead of refusing the call.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseTools, okOutput, type BaseToolHarness } from "./base-tools.ts";

let tools: BaseToolHarness;
let workdir: string;

beforeAll(async () => {
  workdir = mkdtempSync(join(tmpdir(), "goondan-numeric-"));
  for (const name of ["a", "b", "c"]) writeFileSync(join(workdir, `${name}.txt`), name);
  tools = await baseTools({ context: { workdir } });
});
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

describe("numeric parameters", () => {
  it("rounds a fractional split limit and lifts one below 1", async () => {
    expect(
      okOutput(await tools.call("text-transform__split", { text: "a,b,c", separator: ",", limit: 2.4 })),
    ).toMatchObject({
      count: 2,
    });
    expect(
      okOutput(await tools.call("text-transform__split", { text: "a,b,c", separator: ",", limit: 0.1 })),
    ).toMatchObject({
      count: 1,
    });
  });

  it("brings a file-system__list maxEntries of 0.2 up to one entry", async () => {
    const listed = okOutput(await tools.call("file-system__list", { path: ".", maxEntries: 0.2 })) as {
      entries: unknown[];
      truncated: boolean;
    };
    expect(listed.entries).toHaveLength(1);
    expect(listed.truncated).toBe(true);
  });

  it("runs bash with a fractional timeoutMs above the longest, lowered to it", async () => {
    const ran = okOutput(await tools.call("bash__exec", { command: "echo fine", timeoutMs: 900_000.5 }));
    expect(ran).toMatchObject({ exitCode: 0, stdout: "fine\n" });
  });
});
