/**
 * Tool entry modules are checked in a separate Bun process: a hang, a process.exit or top-level side
 * effects never reach the validating process, an edited module is seen fresh, and the other modules of
 * the bundle are still checked.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { baseBundle, header, removeBundles, writeBundle } from "./temp-bundle.ts";

afterAll(removeBundles);

const secondTool = `${header("Tool", "other")}spec: { entry: ./tools/other.ts, exports: [{ name: run }] }\n`;

describe("checking Tool modules", () => {
  it("reports a module that never finishes loading and still checks the next one", async () => {
    const dir = writeBundle(
      baseBundle({
        extra: [secondTool],
        files: {
          "tools/echo.ts": "while (true) {}\nexport const handlers = {};\n",
          "tools/other.ts": "export const handlers = {};\n",
        },
      }),
    );
    const result = await loadBundle(dir, { moduleTimeoutMs: 2_000 });
    expect(result.errors.map((issue) => [issue.code, issue.path])).toEqual([
      ["E_CONFIG_MODULE_LOAD", "goondan.yaml#1.spec.entry"],
      ["E_CONFIG_HANDLER_MISSING", "goondan.yaml#4.spec.exports[0].name"],
    ]);
    expect(result.errors[0]?.message).toContain("timed out after 2000 ms");
  }, 20_000); // the healthy module must load within the limit on a loaded machine too

  it("reports a module that exits the process while loading", async () => {
    const dir = writeBundle(
      baseBundle({ files: { "tools/echo.ts": "process.exit(7);\nexport const handlers = {};\n" } }),
    );
    const result = await loadBundle(dir);
    expect(result.errors.map((issue) => issue.code)).toEqual(["E_CONFIG_MODULE_LOAD"]);
    expect(result.errors[0]?.message).toContain("exit code 7");
  });

  it("never runs a module's top-level code in the validating process", async () => {
    const dir = writeBundle(
      baseBundle({
        files: {
          "tools/echo.ts":
            "(globalThis as Record<string, unknown>).goondanProbeRan = true;\nexport const handlers = { say: () => 1 };\n",
        },
      }),
    );
    expect((await loadBundle(dir)).valid).toBe(true);
    expect((globalThis as Record<string, unknown>).goondanProbeRan).toBeUndefined();
  });

  it("sees a module's edits on the next validation", async () => {
    const dir = writeBundle(
      baseBundle({ files: { "tools/echo.ts": "export const handlers = { shout: () => 1 };\n" } }),
    );
    expect((await loadBundle(dir)).errors.map((issue) => issue.code)).toEqual(["E_CONFIG_HANDLER_MISSING"]);
    writeFileSync(join(dir, "tools/echo.ts"), "export const handlers = { say: () => 1 };\n");
    expect((await loadBundle(dir)).valid).toBe(true);
  });

  it("ignores what a module prints while loading", async () => {
    const dir = writeBundle(
      baseBundle({
        files: {
          "tools/echo.ts":
            "process.stdout.write('noise without newline');\nconsole.log('more noise');\nexport const handlers = { say: () => 1 };\n",
        },
      }),
    );
    const result = await loadBundle(dir);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it("gives the module the environment it is given", async () => {
    const dir = writeBundle(
      baseBundle({
        files: {
          "tools/echo.ts":
            "if (process.env.ECHO_READY !== 'yes') throw new Error('ECHO_READY unset');\nexport const handlers = { say: () => 1 };\n",
        },
      }),
    );
    expect((await loadBundle(dir, { env: { ECHO_READY: "yes" } })).valid).toBe(true);
    const failed = await loadBundle(dir, { env: {} });
    expect(failed.errors.map((issue) => issue.code)).toEqual(["E_CONFIG_MODULE_LOAD"]);
    expect(failed.errors[0]?.message).toContain("ECHO_READY unset");
  });
});
