import { afterEach, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { entryFiles, resolveLocalSpecifier } from "../../src/config/entry-imports.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-imports-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("entryFiles", () => {
  it("follows relative imports, re-exports and dynamic imports transitively, entry first", () => {
    const dir = tree({
      "bundle/tools/a.ts":
        'import { b } from "./lib/b.ts";\nexport * from "./lib/c";\nconst d = await import("./lib/d.js");\nimport "pino";\n',
      "bundle/tools/lib/b.ts": 'import { c } from "./c.ts";\nexport const b = 1;\n',
      "bundle/tools/lib/c.ts": 'import { b } from "./b.ts";\nexport const c = 2;\n',
      "bundle/tools/lib/d.ts": "export const d = 3;\n",
    });
    const files = entryFiles({ entry: join(dir, "bundle/tools/a.ts"), within: join(dir, "bundle") });
    expect(files[0]).toBe(join(dir, "bundle/tools/a.ts"));
    expect(files.slice(1).sort()).toEqual(
      ["lib/b.ts", "lib/c.ts", "lib/d.ts"].map((file) => join(dir, "bundle/tools", file)),
    );
  });

  it("does not follow imports that leave the bundle dir", () => {
    const dir = tree({ "bundle/tools/a.ts": 'import "../../shared.ts";\n', "shared.ts": "export {};\n" });
    expect(entryFiles({ entry: join(dir, "bundle/tools/a.ts"), within: join(dir, "bundle") })).toEqual([
      join(dir, "bundle/tools/a.ts"),
    ]);
  });

  it("keeps a missing entry (so it can be watched) and skips a file that does not parse", () => {
    const dir = tree({ "bundle/broken.ts": 'import { x } from "./x.ts"\nconst = ;\n', "bundle/x.ts": "" });
    expect(entryFiles({ entry: join(dir, "bundle/missing.ts") })).toEqual([join(dir, "bundle/missing.ts")]);
    expect(entryFiles({ entry: join(dir, "bundle/broken.ts") })).toEqual([join(dir, "bundle/broken.ts")]);
  });
});

describe("resolveLocalSpecifier", () => {
  it("resolves an extensionless path, a .js specifier for a .ts file and a directory index", () => {
    const dir = tree({ "a.ts": "", "lib/b.ts": "", "pkg/index.ts": "" });
    const from = join(dir, "a.ts");
    expect(resolveLocalSpecifier(from, "./lib/b")).toBe(join(dir, "lib/b.ts"));
    expect(resolveLocalSpecifier(from, "./lib/b.js")).toBe(join(dir, "lib/b.ts"));
    expect(resolveLocalSpecifier(from, "./pkg")).toBe(join(dir, "pkg/index.ts"));
    expect(resolveLocalSpecifier(from, "./nope")).toBeUndefined();
  });
});
