import { afterAll, describe, expect, it } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execForm, parseDockerfile, splitOptions, stages } from "./dockerfile.ts";
import { layoutImage, productionPackages } from "./image-layout.ts";
import { type ProcessResult, runToExit } from "../helpers/goondan-process.ts";

// The Dockerfile's install checks, run without a container engine: each build step's command is taken from
// the Dockerfile text and run in a scratch directory laid out as that stage would be, over a whole install
// and over installs broken the ways npm leaves them when `npm ci` exits 0 after a failed fetch.

const repo = join(import.meta.dir, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "goondan-install-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }), 60_000);

const all = stages(parseDockerfile(readFileSync(join(repo, "Dockerfile"), "utf8")));
const depsStage = all.find((stage) => stage.name === "deps")!;
const runtimeStage = all.at(-1)!;
const installStep = depsStage.instructions.find(
  (instruction) => instruction.keyword === "RUN" && instruction.args.includes("npm ci"),
)!;
const verifyStep = runtimeStage.instructions.find(
  (instruction) => instruction.keyword === "RUN" && instruction.args.includes("verify-install"),
)!;

/** Copies a package directory, as hard links where the file system allows (the same bytes, no copying). */
function copyPackage(options: { from: string; to: string }): void {
  mkdirSync(dirname(options.to), { recursive: true });
  const linked = Bun.spawnSync(["cp", "-al", options.from, options.to]);
  if (linked.exitCode !== 0 && Bun.spawnSync(["cp", "-a", options.from, options.to]).exitCode !== 0)
    throw new Error(`cannot copy ${options.from}`);
}

type Breakage = (nodeModules: string) => void;

/** A scratch /app of the deps stage after its COPYs, with node_modules as `npm ci` left it. */
function depsStageAfterInstall(options: { name: string; leave: "whole" | "nothing"; breakage?: Breakage }): string {
  const app = join(scratch, options.name);
  mkdirSync(app, { recursive: true });
  for (const copy of depsStage.instructions.filter((instruction) => instruction.keyword === "COPY")) {
    const parts = splitOptions(copy.args).rest.split(" ");
    for (const source of parts.slice(0, -1)) copyFileSync(join(repo, source), join(app, source));
  }
  if (options.leave === "whole") {
    for (const name of productionPackages(repo))
      copyPackage({ from: join(repo, "node_modules", name), to: join(app, "node_modules", name) });
  }
  options.breakage?.(join(app, "node_modules"));
  return app;
}

/** An `npm` first on PATH whose `ci` exits 0 without touching node_modules (npm's bug); the rest is the real npm. */
function npmWhoseCiSucceedsRegardless(): string {
  const realNpm = Bun.which("npm");
  if (!realNpm) throw new Error("npm is not on PATH");
  const bin = join(scratch, "shim-bin");
  mkdirSync(bin, { recursive: true });
  const shim = join(bin, "npm");
  writeFileSync(shim, `#!/bin/sh\nif [ "$1" = "ci" ]; then exit 0; fi\nexec ${JSON.stringify(realNpm)} "$@"\n`);
  chmodSync(shim, 0o755);
  return bin;
}

async function runInstallStep(app: string): Promise<ProcessResult> {
  return runToExit({
    argv: ["/bin/sh", "-c", installStep.args],
    cwd: app,
    env: {
      PATH: `${npmWhoseCiSucceedsRegardless()}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      HOME: scratch,
      npm_config_update_notifier: "false",
    },
  });
}

const cutShort =
  (name: string): Breakage =>
  (nodeModules) => {
    // The manifest survived, the code did not (an interrupted extraction).
    const manifest = readFileSync(join(nodeModules, name, "package.json"));
    rmSync(join(nodeModules, name), { recursive: true });
    mkdirSync(join(nodeModules, name));
    writeFileSync(join(nodeModules, name, "package.json"), manifest);
  };

describe("the install stage's RUN (npm ci, then npm ls), when npm ci exits 0", () => {
  it("is one shell command that installs and then checks the tree", () => {
    expect(execForm(installStep.args)).toBeUndefined();
    expect(installStep.args).toMatch(/^npm ci .*&& npm ls --omit=dev /);
  });

  it("passes over a whole production install", async () => {
    const app = depsStageAfterInstall({ name: "whole", leave: "whole" });
    const result = await runInstallStep(app);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
  }, 60_000);

  it("fails the build over an empty node_modules", async () => {
    const result = await runInstallStep(depsStageAfterInstall({ name: "empty", leave: "nothing" }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("missing: hono@");
  }, 60_000);

  it("fails the build over a partial install (a package missing, another left empty), naming both", async () => {
    const app = depsStageAfterInstall({
      name: "partial",
      leave: "whole",
      breakage: (nodeModules) => {
        rmSync(join(nodeModules, "hono"), { recursive: true });
        rmSync(join(nodeModules, "yaml"), { recursive: true });
        mkdirSync(join(nodeModules, "yaml"));
      },
    });
    const result = await runInstallStep(app);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("missing: hono@");
    expect(result.stderr).toContain("invalid: yaml@");
  }, 60_000);

  it("lets a package cut short after its manifest through: the runtime stage's import check is what catches it", async () => {
    const app = depsStageAfterInstall({ name: "cut-short", leave: "whole", breakage: cutShort("yaml") });
    expect((await runInstallStep(app)).code).toBe(0);
  }, 60_000);
});

describe("the runtime stage's RUN (bun /app/docker/verify-install.ts), in a directory laid out like the image", () => {
  async function runVerifyStep(breakage?: Breakage): Promise<ProcessResult> {
    const layout = layoutImage({ repo, root: mkdtempSync(join(scratch, "image-")) });
    breakage?.(layout.map("/app/node_modules"));
    const [runtime, ...args] = execForm(verifyStep.args)!;
    expect(runtime).toBe("bun");
    return runToExit({
      argv: [process.execPath, ...args.map((arg) => (arg.startsWith("/") ? layout.map(arg) : arg))],
      cwd: layout.map(layout.workdir),
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...layout.env },
    });
  }

  it("passes over the production packages, importing goondan's entries and its dependencies", async () => {
    const result = await runVerifyStep();
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^install verified: \d+ modules imported\n$/);
  }, 60_000);

  it.each([
    ["a package missing", (nodeModules: string) => rmSync(join(nodeModules, "hono")), "hono"],
    ["a package cut short after its manifest", cutShort("yaml"), "yaml"],
  ])(
    "fails the build over %s, naming what did not import",
    async (_, breakage, named) => {
      const result = await runVerifyStep(breakage);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("the install is broken");
      expect(result.stderr).toContain(named);
    },
    60_000,
  );
});
