import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  dockerignorePatterns,
  envOf,
  execForm,
  globalArgs,
  isIgnored,
  parseDockerfile,
  splitOptions,
  stages,
} from "./dockerfile.ts";
import packageJson from "../../package.json" with { type: "json" };

const root = join(import.meta.dir, "..", "..");
const instructions = parseDockerfile(readFileSync(join(root, "Dockerfile"), "utf8"));
const all = stages(instructions);
const runtime = all.at(-1)!;
const only = (keyword: string) => runtime.instructions.filter((instruction) => instruction.keyword === keyword);
const last = (keyword: string) => only(keyword).at(-1);
const ignorePatterns = dockerignorePatterns(readFileSync(join(root, ".dockerignore"), "utf8"));

describe("the Dockerfile reader", () => {
  it("joins continued lines, skips comments and keeps exec-form arguments", () => {
    const parsed = parseDockerfile('# c\nFROM a AS b\nRUN one \\\n  # inner comment\n  two\nCMD ["x", "y"]\n');
    expect(parsed.map((instruction) => instruction.keyword)).toEqual(["FROM", "RUN", "CMD"]);
    expect(parsed[1]!.args).toBe("one two");
    expect(execForm(parsed[2]!.args)).toEqual(["x", "y"]);
    expect(execForm("x y")).toBeUndefined();
  });

  it("refuses an instruction before FROM and a dangling continuation", () => {
    expect(() => stages(parseDockerfile("RUN x\n"))).toThrow();
    expect(() => parseDockerfile("FROM a\nRUN x \\\n")).toThrow();
  });

  it("resolves a FROM's build argument from the ARGs before the first FROM, or from a given build argument", () => {
    const parsed = parseDockerfile("ARG BASE=a:1\nARG OTHER\nFROM ${BASE} AS one\nFROM $BASE\n");
    expect(globalArgs(parsed)).toEqual({ BASE: "a:1", OTHER: "" });
    expect(stages(parsed).map((stage) => [stage.image, stage.from])).toEqual([
      ["${BASE}", "a:1"],
      ["$BASE", "a:1"],
    ]);
    expect(stages(parsed, { BASE: "mirror/a:1" }).map((stage) => stage.from)).toEqual(["mirror/a:1", "mirror/a:1"]);
    expect(() => stages(parseDockerfile("ARG OTHER\nFROM ${OTHER}\n"))).toThrow();
  });
});

describe("Dockerfile", () => {
  it("runs on the slim Bun image of the version pinned in package.json", () => {
    expect(runtime.from).toBe(`oven/bun:${packageJson.dependencies.bun}-slim`);
  });

  it("takes both base images from build arguments, so a mirror or a local base needs no edit", () => {
    expect(all.map((stage) => stage.image)).toEqual(["${NODE_IMAGE}", "${BUN_IMAGE}"]);
    expect(globalArgs(instructions)).toEqual({
      NODE_IMAGE: all[0]!.from,
      BUN_IMAGE: `oven/bun:${packageJson.dependencies.bun}-slim`,
    });
    const mirrored = stages(instructions, {
      NODE_IMAGE: "registry.local/node:24-bookworm-slim",
      BUN_IMAGE: "registry.local/bun:base",
    });
    expect(mirrored.map((stage) => stage.from)).toEqual([
      "registry.local/node:24-bookworm-slim",
      "registry.local/bun:base",
    ]);
  });

  it("installs with a Node that package.json's engines.node admits", () => {
    const tag = /^node:(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-|$)/.exec(all[0]!.from);
    expect(tag).not.toBeNull();
    // A major-only tag floats to its newest release; it must be admitted from the first release of that line on.
    const lowest = `${tag![1]}.${tag![2] ?? 0}.${tag![3] ?? 0}`;
    expect({ lowest, admitted: Bun.semver.satisfies(lowest, packageJson.engines.node) }).toEqual({
      lowest,
      admitted: true,
    });
  });

  it("removes apt's package lists and caches in the same RUN that installs packages", () => {
    const installs = only("RUN").filter((instruction) => instruction.args.includes("apt-get install"));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) {
      expect(install.args).toContain("rm -rf /var/lib/apt/lists/*");
      expect(install.args).toContain("/var/cache/apt/*.bin");
    }
  });

  it("gives the user a HOME of its own, outside the state volume", () => {
    const env = envOf(runtime.instructions);
    const home = env.HOME!;
    expect(home).toBeDefined();
    expect(home === env.GOONDAN_STATE_ROOT || home.startsWith(`${env.GOONDAN_STATE_ROOT}/`)).toBe(false);
    const useradd = only("RUN").find((instruction) => instruction.args.includes("useradd"));
    expect(useradd?.args).toContain(`--home-dir ${home} --create-home`);
  });

  it("imports the whole install with the runtime's Bun after copying node_modules and the sources", () => {
    const verify = only("RUN").filter((instruction) => instruction.args.includes("verify-install.ts"));
    expect(verify.map((instruction) => execForm(instruction.args))).toEqual([["bun", "/app/docker/verify-install.ts"]]);
    const lastCopy = Math.max(...only("COPY").map((instruction) => instruction.line));
    expect(verify[0]!.line).toBeGreaterThan(lastCopy);
  });

  it("installs production dependencies from the committed npm lockfile", () => {
    const install = all
      .flatMap((stage) => stage.instructions)
      .filter((instruction) => instruction.keyword === "RUN" && instruction.args.includes("npm ci"));
    expect(install).toHaveLength(1);
    expect(install[0]!.args).toContain("--omit=dev");
    expect(install[0]!.args).toMatch(/&& npm ls --omit=dev\b/);
    expect(existsSync(join(root, "package-lock.json"))).toBe(true);
  });

  it("runs as a non-root user", () => {
    const user = last("USER");
    expect(user).toBeDefined();
    const name = user!.args.split(":")[0]!;
    expect(["root", "0"]).not.toContain(name);
  });

  it("keeps the state root on a volume and points GOONDAN_STATE_ROOT at it", () => {
    const env = envOf(runtime.instructions);
    expect(env.GOONDAN_STATE_ROOT).toBe("/var/lib/goondan");
    const volumes = only("VOLUME").flatMap((instruction) => execForm(instruction.args) ?? instruction.args.split(" "));
    expect(volumes).toContain(env.GOONDAN_STATE_ROOT!);
  });

  it("stops with SIGTERM", () => {
    expect(last("STOPSIGNAL")?.args).toBe("SIGTERM");
  });

  it("checks health with bun's fetch on /healthz, no curl", () => {
    const healthcheck = last("HEALTHCHECK");
    expect(healthcheck).toBeDefined();
    const { rest } = splitOptions(healthcheck!.args);
    expect(rest.startsWith("CMD ")).toBe(true);
    const command = execForm(rest.slice(4));
    expect(command).toEqual(["bun", "/app/docker/healthcheck.ts"]);
    expect(existsSync(join(root, "docker", "healthcheck.ts"))).toBe(true);
  });

  it("starts goondan run on the bundle at /app/bundle, in exec form, behind an init", () => {
    const entrypoint = execForm(last("ENTRYPOINT")!.args);
    const command = execForm(last("CMD")!.args);
    expect(entrypoint?.slice(0, 2)).toEqual(["/usr/bin/tini", "--"]);
    expect(entrypoint?.slice(2)).toEqual(["bun", "/app/docker/entrypoint.ts"]);
    expect(command).toEqual(["run", "/app/bundle"]);
  });

  it("copies only paths that exist and that .dockerignore lets through", () => {
    const copies = only("COPY").filter((instruction) => !splitOptions(instruction.args).options.from);
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const parts = splitOptions(copy.args).rest.split(" ");
      for (const source of parts.slice(0, -1)) {
        expect({ source, exists: existsSync(join(root, source)) }).toEqual({ source, exists: true });
        expect({ source, ignored: isIgnored({ path: source, patterns: ignorePatterns }) }).toEqual({
          source,
          ignored: false,
        });
      }
    }
  });
});

describe(".dockerignore", () => {
  it("keeps the state root, node_modules, tests and git out of the build context", () => {
    for (const path of [
      "node_modules",
      "node_modules/ai/package.json",
      "examples/x/node_modules/y",
      ".goondan",
      ".goondan/workspaces/a",
      "test",
      "test/container/dockerfile.test.ts",
      ".git",
      "bench/x.ts",
      "debug.log",
    ]) {
      expect({ path, ignored: isIgnored({ path, patterns: ignorePatterns }) }).toEqual({ path, ignored: true });
    }
  });

  it("lets the sources and the bundled example through", () => {
    for (const path of [
      "src/cli/main.ts",
      "bin/goondan",
      "package.json",
      "package-lock.json",
      "goondan.yaml",
      "docker/entrypoint.ts",
      "cassettes",
    ]) {
      expect({ path, ignored: isIgnored({ path, patterns: ignorePatterns }) }).toEqual({ path, ignored: false });
    }
  });

  it("honours negated patterns, last match wins", () => {
    expect(isIgnored({ path: "a/keep.txt", patterns: ["a", "!a/keep.txt"] })).toBe(false);
    expect(isIgnored({ path: "a/other.txt", patterns: ["a", "!a/keep.txt"] })).toBe(true);
    expect(isIgnored({ path: "deep/x.log", patterns: ["*.log"] })).toBe(false);
    expect(isIgnored({ path: "deep/x.log", patterns: ["**/*.log"] })).toBe(true);
  });
});
