/** `goondan schema` prints the JSON Schema of a goondan.yaml document, for editors. */
import { describe, expect, it } from "bun:test";
import { main } from "../../src/cli/main.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { documentSchema } from "../../src/config/document-schema.ts";

describe("goondan schema", () => {
  it("prints the document schema as JSON and exits 0", async () => {
    const out: string[] = [];
    const io: CliIo = { stdout: (text) => void out.push(text), stderr: () => {}, env: {}, cwd: "/" };
    expect(await main(["schema"], io)).toBe(0);
    expect(JSON.parse(out.join(""))).toEqual(documentSchema());
  });

  it("takes no arguments", async () => {
    const err: string[] = [];
    const io: CliIo = { stdout: () => {}, stderr: (text) => void err.push(text), env: {}, cwd: "/" };
    expect(await main(["schema", "extra"], io)).toBe(2);
    expect(err.join("")).toContain("unexpected argument");
  });
});
