import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { main } from "../../src/cli/main.ts";
import { bundleName, bundleTsconfig, initBundle, TEMPLATES } from "../../src/cli/commands/init.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const made: string[] = [];
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "goondan-init-"));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function captureIo(cwd: string): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text) => void out.push(text), stderr: (text) => void err.push(text), env: {}, cwd };
}

describe("goondan init", () => {
  it("writes the default template into a new directory and names the bundle after it", async () => {
    const cwd = scratch();
    const io = captureIo(cwd);
    expect(await main(["init", "My Bot"], io)).toBe(0);
    const dir = join(cwd, "My Bot");
    for (const file of ["goondan.yaml", "prompts/assistant.md", "tools/clock.ts", ".gitignore"])
      expect(existsSync(join(dir, file))).toBe(true);
    const documents = parseAllDocuments(readFileSync(join(dir, "goondan.yaml"), "utf8")).map(
      (document) => document.toJS() as { kind: string; metadata: { name: string } },
    );
    expect(documents.find((document) => document.kind === "Swarm")?.metadata.name).toBe("my-bot");
    expect(io.out.join("")).toContain("goondan run");
  });

  it("writes the multi-agent template with a coordinator that delegates to a worker", () => {
    const dir = join(scratch(), "team");
    const written = initBundle({ dir, template: "multi-agent" });
    expect(written).toContain("goondan.yaml");
    const text = readFileSync(join(dir, "goondan.yaml"), "utf8");
    const kinds = parseAllDocuments(text).map(
      (document) => document.toJS() as { kind: string; metadata: { name: string } },
    );
    expect(kinds.filter((document) => document.kind === "Agent").map((document) => document.metadata.name)).toEqual([
      "coordinator",
      "worker",
    ]);
    expect(text).toContain("name: agents");
  });

  it("heads goondan.yaml with the yaml-language-server line pointing at the schema it writes next to it", async () => {
    for (const template of TEMPLATES) {
      const dir = join(scratch(), template);
      const written = initBundle({ dir, template });
      const [first] = readFileSync(join(dir, "goondan.yaml"), "utf8").split("\n");
      expect(first).toBe("# yaml-language-server: $schema=./goondan.schema.json");
      expect(written).toContain("goondan.schema.json");
      const schemaIo = captureIo(dir);
      expect(await main(["schema"], schemaIo)).toBe(0);
      expect(readFileSync(join(dir, "goondan.schema.json"), "utf8")).toBe(schemaIo.out.join(""));
      expect((await loadBundle(dir, { checkModules: false })).errors).toEqual([]);
    }
  });

  it("refuses a non-empty directory unless --force", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "keep.txt"), "mine");
    const io = captureIo(dir);
    expect(await main(["init", dir], io)).toBe(2);
    expect(existsSync(join(dir, "goondan.yaml"))).toBe(false);
    expect(() => initBundle({ dir })).toThrow(expect.objectContaining({ code: "E_INIT_TARGET_NOT_EMPTY" }));
    expect(await main(["init", dir, "--force"], captureIo(dir))).toBe(0);
    expect(existsSync(join(dir, "goondan.yaml"))).toBe(true);
    expect(readFileSync(join(dir, "keep.txt"), "utf8")).toBe("mine");
  });

  it("refuses a target that is a file", () => {
    const file = join(scratch(), "file");
    writeFileSync(file, "");
    expect(() => initBundle({ dir: file })).toThrow(expect.objectContaining({ code: "E_INIT_TARGET_NOT_DIRECTORY" }));
  });

  it("rejects an unknown template as a usage error", async () => {
    expect(await main(["init", scratch(), "--template", "nope"], captureIo(scratch()))).toBe(2);
    expect(() => initBundle({ dir: scratch(), template: "nope" as "default" })).toThrow(
      expect.objectContaining({ code: "E_INIT_UNKNOWN_TEMPLATE" }),
    );
  });

  it("initialises the current directory when no dir is given", async () => {
    const dir = scratch();
    mkdirSync(join(dir, "empty"));
    expect(await main(["init"], captureIo(join(dir, "empty")))).toBe(0);
    expect(existsSync(join(dir, "empty", "goondan.yaml"))).toBe(true);
  });
});

describe("the tsconfig.json of a new bundle", () => {
  const REPO = join(import.meta.dir, "../..");
  const goondanPaths = (config: Record<string, unknown>) =>
    (config.compilerOptions as { paths: Record<string, string[]> }).paths.goondan;

  it('maps "goondan" to the package\'s src/index.ts by absolute path outside the package', () => {
    const dir = join(scratch(), "bot");
    const written = initBundle({ dir });
    expect(written).toContain("tsconfig.json");
    const config = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8")) as Record<string, unknown>;
    expect(goondanPaths(config)).toEqual([join(REPO, "src/index.ts")]);
  });

  it("uses a relative path when the bundle is inside the package", () => {
    expect(goondanPaths(bundleTsconfig({ dir: join(REPO, "examples/mine"), packageRoot: REPO }))).toEqual([
      "../../src/index.ts",
    ]);
    expect(goondanPaths(bundleTsconfig({ dir: REPO, packageRoot: REPO }))).toEqual(["./src/index.ts"]);
    expect(goondanPaths(bundleTsconfig({ dir: "/elsewhere/bot", packageRoot: REPO }))).toEqual([
      join(REPO, "src/index.ts"),
    ]);
  });

  it('lets tsc type-check the template\'s tool, which imports types from "goondan", with no node_modules', () => {
    const dir = join(scratch(), "typed");
    initBundle({ dir });
    writeFileSync(
      join(dir, "tools/wrong.ts"),
      'import type { ToolHandler } from "goondan";\nexport const wrong: ToolHandler = 5;\n',
    );
    const tsc = join(REPO, "node_modules/.bin/tsc");
    const failing = Bun.spawnSync([tsc, "--noEmit", "-p", join(dir, "tsconfig.json")], { cwd: dir });
    expect(failing.stdout.toString()).toContain("tools/wrong.ts");
    expect(failing.stdout.toString()).not.toContain("'goondan'");
    rmSync(join(dir, "tools/wrong.ts"));
    const passing = Bun.spawnSync([tsc, "--noEmit", "-p", join(dir, "tsconfig.json")], { cwd: dir });
    expect(passing.stdout.toString()).toBe("");
    expect(passing.exitCode).toBe(0);
  });

  it("keeps a tsconfig.json the directory already has, even with --force", () => {
    const dir = scratch();
    writeFileSync(join(dir, "tsconfig.json"), "{}\n");
    expect(initBundle({ dir, force: true })).not.toContain("tsconfig.json");
    expect(readFileSync(join(dir, "tsconfig.json"), "utf8")).toBe("{}\n");
  });
});

describe("bundleName", () => {
  it("derives a resource-safe name from the directory", () => {
    expect(bundleName("/x/My Cool_Bot!")).toBe("my-cool_bot");
    expect(bundleName("/x/__")).toBe("my-swarm");
    expect(bundleName("/x/a__b")).toBe("a_b");
  });
});

describe.each(TEMPLATES.map((template) => [template]))("template %s", (template) => {
  it("passes the bundle loader with no errors and no warnings", async () => {
    const dir = join(scratch(), `t-${template}`);
    initBundle({ dir, template });
    const result = await loadBundle(dir);
    expect({ errors: result.errors, warnings: result.warnings, valid: result.valid }).toEqual({
      errors: [],
      warnings: [],
      valid: true,
    });
  });
});
