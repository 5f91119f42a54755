/**
 * The public Goondan CLI's flags on goondan: short flags, each upstream flag either working (rewritten into
 * goondan's own) or refused with a one-line hint naming goondan's equivalent (E_USAGE_UPSTREAM_FLAG, exit 2),
 * validate --strict and --format github, and --flag=false for a boolean.
 */
import { captureIo } from "./support/capture-io.ts";
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "../../src/cli/args.ts";
import { main } from "../../src/cli/main.ts";
import { translateUpstreamFlags } from "../../src/cli/upstream-flags.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();
const TUTORIAL_02 = new URL("../fixtures/bundles/tutorial-02-tool", import.meta.url).pathname;

const RUN_FLAGS = {
  swarm: { type: "string", description: "", short: "s" },
  watch: { type: "boolean", description: "", short: "w" },
  input: { type: "string", description: "" },
  format: { type: "string", description: "", choices: ["text", "json"] },
} as const;

describe("upstream flags", () => {
  it("parses short flags and --flag=false", () => {
    expect(parseArgs(["-w", "-s", "main", "dir"], RUN_FLAGS, { maxPositionals: 1 })).toEqual({
      flags: { watch: true, swarm: "main" },
      positionals: ["dir"],
    });
    expect(parseArgs(["--watch=false"], RUN_FLAGS).flags.watch).toBeUndefined();
  });

  it("rewrites --json, --config, --foreground, --no-color, --input-file and init -t minimal into goondan's flags", () => {
    const dir = mkdtempSync(join(tmpdir(), "goondan-upstream-flags-"));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "question.txt"), "what is 2+2?");
    const translate = (command: string, argv: string[]) =>
      translateUpstreamFlags({ command, argv, flags: RUN_FLAGS, cwd: dir });
    expect(translate("run", ["--json", "-c", "b/goondan.yaml", "--foreground", "--no-color"])).toEqual([
      "--format",
      "json",
      "b/goondan.yaml",
    ]);
    expect(translate("run", ["--input-file", "question.txt"])).toEqual(["--input", "what is 2+2?"]);
    expect(translate("init", ["-t", "minimal"])).toEqual(["--template", "default"]);
    expect(translate("logs", ["--instance-key", "k1"])).toEqual(["--instance", "k1"]);
    expect(translate("instance", ["delete", "a", "k", "-f"])).toEqual(["delete", "a", "k"]);
  });

  it("answers upstream-only flags with a one-line hint and exit 2", async () => {
    for (const [argv, hint] of [
      [["doctor", "--fix"], "--fix: goondan reports only"],
      [["ps", "-q"], "-q: goondan prints only results and warnings"],
      [["instance", "list", "-n", "5"], "-n: goondan instance list shows every instance"],
      [["instance", "restart", "k"], "use 'goondan restart --agent NAME --instance KEY'"],
    ] as const) {
      const io = captureIo();
      expect(await main([...argv], io)).toBe(2);
      expect(io.err()).toContain(hint);
      expect(io.err().trimEnd().split("\n")).toHaveLength(1);
    }
  });

  it("makes validate --strict fail on a warning and --format github print annotations", async () => {
    const loose = captureIo();
    expect(await main(["validate", TUTORIAL_02, "--static"], loose)).toBe(0);
    const strict = captureIo();
    expect(await main(["validate", TUTORIAL_02, "--static", "--strict"], strict)).toBe(3);
    const github = captureIo({ cwd: TUTORIAL_02 });
    expect(await main(["validate", ".", "--static", "--format", "github"], github)).toBe(0);
    expect(github.out()).toMatch(/^::warning file=goondan\.yaml,line=\d+,col=\d+,title=W_CONFIG_DEPRECATED_FIELD::/);
  });

  it("shows short flags in a command's help", async () => {
    const io = captureIo();
    await main(["help", "run"], io);
    expect(io.out()).toContain("  -w, --watch\n");
  });
});
