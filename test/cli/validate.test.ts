/**
 * `goondan validate`: exit 0 for a valid bundle (warnings allowed), 3 for an invalid one; text output is
 * one issue per line, `file:line:column` and the document path first, with "did you mean" for a likely typo,
 * then a summary; `--format json` prints `{valid, errors, warnings}` only.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../src/cli/main.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { baseBundle, header, removeBundles, writeBundle } from "../config/temp-bundle.ts";

afterAll(removeBundles);

const EVERY_KIND = join(import.meta.dir, "../fixtures/bundles/every-kind");

function captureIo(cwd: string): CliIo & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    env: {},
    cwd,
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

/** The text of `file` from a 1-based line and column on. */
const textAt = (file: string, line: number, column: number): string =>
  (readFileSync(file, "utf8").split("\n")[line - 1] ?? "").slice(column - 1);

const badBundle = () =>
  writeBundle(
    baseBundle({
      agent: `${header("Agent", "a")}spec:\n  modelConfig: { modelRef: Model/m }\n  prompt: { system: hi }\n  tools: [Tool/echo, Tool/ehco]\n`,
    }),
  );

describe("goondan validate", () => {
  it("exits 0 and prints a summary for a valid bundle", async () => {
    const io = captureIo("/");
    expect(await main(["validate", EVERY_KIND], io)).toBe(0);
    expect(io.out()).toBe(`valid: ${EVERY_KIND} (0 errors, 0 warnings)\n`);
  });

  it("validates the current directory when no bundle is given", async () => {
    const io = captureIo(EVERY_KIND);
    expect(await main(["validate"], io)).toBe(0);
    expect(io.out()).toContain("valid:");
  });

  it("exits 3 and prints one line per issue, file:line:column first, then the summary", async () => {
    const dir = badBundle();
    const io = captureIo(dir);
    expect(await main(["validate", "."], io)).toBe(3);
    const lines = io.out().trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    const head =
      /^goondan\.yaml:(\d+):(\d+): #2\.spec\.tools\[1\]: E_CONFIG_REF_NOT_FOUND Tool\/ehco not found; did you mean Tool\/echo\?; defined tools: echo, /.exec(
        lines[0] ?? "",
      );
    expect(head).not.toBeNull();
    expect(textAt(join(dir, "goondan.yaml"), Number(head?.[1]), Number(head?.[2]))).toStartWith("Tool/ehco");
    expect(lines[1]).toBe(`invalid: ${dir} (1 error, 0 warnings)`);
  });

  it("says which field was meant for an unknown field, and which value for a misspelled one", async () => {
    const dir = writeBundle(
      baseBundle({
        agent: `${header("Agent", "a")}spec:\n  modelConfig: { modelRef: Model/m }\n  prompt: { system: hi }\n  tool: [Tool/echo]\n`,
      }),
    );
    const io = captureIo("/");
    expect(await main(["validate", dir], io)).toBe(3);
    const line =
      io
        .out()
        .split("\n")
        .find((text) => text.includes("#2.spec.tool:")) ?? "";
    expect(line).toMatch(
      /^goondan\.yaml:\d+:3: #2\.spec\.tool: E_CONFIG_SCHEMA_INVALID expected one of the fields .*, found unknown field "tool"; did you mean "tools"\?$/,
    );
    const [, row, column] = /^goondan\.yaml:(\d+):(\d+)/.exec(line) ?? [];
    expect(textAt(join(dir, "goondan.yaml"), Number(row), Number(column))).toStartWith("tool:");

    const provider = writeBundle(
      baseBundle({ model: `${header("Model", "m")}spec:\n  provider: anthropc\n  model: x\n` }),
    );
    const second = captureIo("/");
    expect(await main(["validate", provider], second)).toBe(3);
    expect(second.out()).toMatch(
      /#0\.spec\.provider: E_CONFIG_SCHEMA_INVALID expected one of .*, found "anthropc"; did you mean "anthropic"\?\n/,
    );
  });

  it("keeps the document path alone for an issue that points at no line (a missing file)", async () => {
    const io = captureIo("/");
    expect(await main(["validate", "/nonexistent/goondan-bundle"], io)).toBe(3);
    expect(io.out()).toStartWith("goondan.yaml: E_FILE_NOT_FOUND expected a file at ");
  });

  it("exits 0 with warnings and prints them", async () => {
    const dir = writeBundle(
      baseBundle({ files: { "tools/echo.ts": "export const handlers = { say: () => 1, spare: () => 2 };\n" } }),
    );
    const io = captureIo("/");
    expect(await main(["validate", dir], io)).toBe(0);
    expect(io.out()).toMatch(/goondan\.yaml:\d+:\d+: #1\.spec\.exports: W_CONFIG_HANDLER_UNUSED/);
    expect(io.out()).toContain("(0 errors, 1 warning)");
  });

  it("prints only {valid, errors, warnings} with --format json", async () => {
    const io = captureIo("/");
    expect(await main(["validate", badBundle(), "--format", "json"], io)).toBe(3);
    const printed = JSON.parse(io.out()) as {
      valid: boolean;
      errors: { code: string; path: string }[];
      warnings: unknown[];
    };
    expect(Object.keys(printed)).toEqual(["valid", "errors", "warnings"]);
    expect(printed.valid).toBe(false);
    expect(printed.errors.map((issue) => [issue.code, issue.path])).toEqual([
      ["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#2.spec.tools[1]"],
    ]);
    expect(printed.warnings).toEqual([]);
  });

  it("accepts --format=json and reports a missing bundle as invalid, not as a crash", async () => {
    const io = captureIo("/");
    expect(await main(["validate", "/nonexistent/goondan-bundle", "--format=json"], io)).toBe(3);
    expect((JSON.parse(io.out()) as { errors: { code: string }[] }).errors.map((issue) => issue.code)).toEqual([
      "E_FILE_NOT_FOUND",
    ]);
    expect(io.err()).toBe("");
  });

  it("exits 2 for an unknown format or a second bundle argument", async () => {
    const first = captureIo("/");
    expect(await main(["validate", EVERY_KIND, "--format", "yaml"], first)).toBe(2);
    expect(first.err().trimEnd().split("\n")).toHaveLength(1);
    const second = captureIo("/");
    expect(await main(["validate", EVERY_KIND, EVERY_KIND], second)).toBe(2);
    expect(second.err()).toContain("unexpected argument");
  });

  it("says in its help that it runs Tool modules' top-level code, and offers --static", async () => {
    const io = captureIo("/");
    expect(await main(["validate", "--help"], io)).toBe(0);
    expect(io.out()).toContain("runs its top-level code");
    expect(io.out()).toContain("--static");
  });

  it("with --static runs none of the bundle's code: a Tool module's top-level side effect never happens", async () => {
    // The module leaves a file behind when anything imports it (in this process or in a probe child).
    const sideEffect = (dir: string) => join(dir, "imported.txt");
    const module =
      'import { writeFileSync } from "node:fs";\nwriteFileSync(new URL("../imported.txt", import.meta.url), "ran");\nexport const handlers = { say: () => 1 };\n';
    const untrusted = writeBundle(baseBundle({ files: { "tools/echo.ts": module } }));
    const io = captureIo("/");
    expect(await main(["validate", untrusted, "--static"], io)).toBe(0);
    expect(io.out()).toBe(`valid: ${untrusted} (0 errors, 0 warnings); Tool modules not loaded (--static)\n`);
    expect(existsSync(sideEffect(untrusted))).toBe(false);
    // Without --static the same bundle is imported (the probe proves the fixture's side effect is real).
    expect(await main(["validate", untrusted], captureIo("/"))).toBe(0);
    expect(existsSync(sideEffect(untrusted))).toBe(true);
  });

  it("with --static still reports every issue that needs no code: schemas, refs and files", async () => {
    const io = captureIo("/");
    expect(await main(["validate", badBundle(), "--static", "--format", "json"], io)).toBe(3);
    expect((JSON.parse(io.out()) as { errors: { code: string }[] }).errors.map((issue) => issue.code)).toEqual([
      "E_CONFIG_REF_NOT_FOUND",
    ]);
  });
});
