/**
 * The CLI dispatcher: help, per-command help, version, and usage errors (unknown command or flag) that
 * exit 2 with a one-line reason; plus one real process through bin/goondan under node, proving the
 * launcher finds Bun.
 */
import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { VERSION, main } from "../../src/cli/main.ts";
import type { CliIo } from "../../src/cli/command.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();
import packageJson from "../../package.json" with { type: "json" };

function captureIo(): CliIo & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    env: {},
    cwd: "/",
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

describe("goondan --help", () => {
  it("lists the commands and exits 0", async () => {
    const io = captureIo();
    expect(await main(["--help"], io)).toBe(0);
    for (const name of ["run", "validate", "schema"]) expect(io.out()).toContain(`  ${name} `);
    expect(io.err()).toBe("");
  });

  it("prints the help and exits 2 when no command is given", async () => {
    const io = captureIo();
    expect(await main([], io)).toBe(2);
    expect(io.out()).toContain("Usage: goondan <command>");
  });
});

describe("goondan <command> --help", () => {
  it("prints the command's usage and flags", async () => {
    const io = captureIo();
    expect(await main(["validate", "--help"], io)).toBe(0);
    expect(io.out()).toContain("Usage: goondan validate [bundle] [--format text|json|github]");
    expect(io.out()).toContain("--format <text|json|github>");
  });

  it("works for a command without flags", async () => {
    const io = captureIo();
    expect(await main(["schema", "-h"], io)).toBe(0);
    expect(io.out()).toContain("Usage: goondan schema");
  });
});

describe("goondan --version", () => {
  it("prints the package version", async () => {
    const io = captureIo();
    expect(await main(["--version"], io)).toBe(0);
    expect(io.out()).toBe(`${packageJson.version}\n`);
    expect(VERSION).toBe(packageJson.version);
  });
});

describe("usage errors", () => {
  it("exits 2 with a one-line reason for an unknown command, naming the closest one", async () => {
    const io = captureIo();
    expect(await main(["valdate"], io)).toBe(2);
    expect(io.err()).toBe(
      "goondan: unknown command \"valdate\"; did you mean 'goondan validate'? (try 'goondan --help')\n",
    );
    expect(io.out()).toBe("");
    const far = captureIo();
    expect(await main(["deploy"], far)).toBe(2);
    expect(far.err()).toBe("goondan: unknown command \"deploy\" (try 'goondan --help')\n");
  });

  it("exits 2 with a one-line reason for an unknown flag, naming a close one", async () => {
    const io = captureIo();
    expect(await main(["validate", "--strictly"], io)).toBe(2);
    expect(io.err()).toBe("goondan validate: unknown flag --strictly; did you mean --strict?\n");
    const near = captureIo();
    expect(await main(["validate", "--statc"], near)).toBe(2);
    expect(near.err()).toBe("goondan validate: unknown flag --statc; did you mean --static?\n");
  });

  it("calls a flag before any command an unknown flag, not an unknown command", async () => {
    for (const flag of ["--bogus", "--bogus=1", "-x"]) {
      const io = captureIo();
      expect(await main([flag], io)).toBe(2);
      expect(io.err()).toBe(`goondan: unknown flag ${flag} (try 'goondan --help')\n`);
      expect(io.out()).toBe("");
    }
  });

  it("exits 2 for a short flag it does not know", async () => {
    const io = captureIo();
    expect(await main(["validate", "-x"], io)).toBe(2);
    expect(io.err().trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("bin/goondan", () => {
  it("runs under node, re-executing itself with Bun, and prints the version", async () => {
    const launcher = join(import.meta.dir, "../../bin/goondan");
    const child = Bun.spawn(["node", launcher, "--version"], { stdout: "pipe", stderr: "pipe" });
    const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(exitCode).toBe(0);
    expect(stdout).toBe(`${packageJson.version}\n`);
  });
});
