import { afterAll, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { codeBlocks } from "./markdown-blocks.ts";
import { REPO } from "./snippet-runner.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const work = mkdtempSync(join(tmpdir(), "goondan-snippet-tsc-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const docs = readdirSync(join(REPO, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => join("docs", name));

describe("TypeScript snippets in the docs", () => {
  it("type-check in strict mode against the goondan package surface", () => {
    const files: string[] = [];
    for (const source of ["README.md", ...docs]) {
      for (const block of codeBlocks({ source, markdown: readFileSync(join(REPO, source), "utf8") })) {
        if (block.lang !== "ts" || block.attributes.file === undefined) continue;
        const path = join(work, "src", source.replace(/[/.]/g, "_"), block.attributes.file);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, block.code);
        files.push(path);
      }
    }
    expect(files.length).toBeGreaterThan(0);
    // Snippets import these SDKs by their package exports (`@a2a-js/sdk/client`), which `paths` cannot express.
    for (const name of ["@modelcontextprotocol/sdk", "@a2a-js/sdk", "@ag-ui/client", "@ag-ui/core", "openai"]) {
      mkdirSync(dirname(join(work, "node_modules", name)), { recursive: true });
      symlinkSync(join(REPO, "node_modules", name), join(work, "node_modules", name));
    }
    const config = JSON.parse(readFileSync(join(REPO, "tsconfig.json"), "utf8")) as {
      compilerOptions: Record<string, unknown>;
    };
    writeFileSync(
      join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          ...config.compilerOptions,
          typeRoots: [join(REPO, "node_modules", "@types")],
          paths: {
            goondan: [join(REPO, "src", "index.ts")],
            "goondan/client": [join(REPO, "src", "client", "index.ts")],
            // startSwarm's in-process half reaches the config loader, which imports semver (typed by @types/semver).
            semver: [join(REPO, "node_modules", "@types", "semver")],
            "*": [join(REPO, "node_modules", "*")],
          },
        },
        include: ["src"],
      }),
    );
    const result = Bun.spawnSync([join(REPO, "node_modules", ".bin", "tsc"), "-p", work], { cwd: work });
    expect({ code: result.exitCode, output: result.stdout.toString() }).toEqual({ code: 0, output: "" });
  }, 60_000);
});
