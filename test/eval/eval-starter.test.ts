/**
 * The example cases that ship: a bundle fresh from `goondan init` and the repository's bundled example both pass
 * `goondan eval --replay` from their committed cassettes, with no API key in the environment and no network.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GOONDAN_BIN } from "../helpers/goondan-process.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();
const SLOW = 120_000;
const REPO = join(import.meta.dir, "../..");
const scratch = mkdtempSync(join(tmpdir(), "goondan-eval-starter-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The environment without any provider key. */
const offline = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/API_KEY|OPENAI|ANTHROPIC|GOOGLE/.test(name)),
);

async function goondan(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, GOONDAN_BIN, ...args], { stdout: "pipe", stderr: "pipe", env: offline });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

describe("the example cases", () => {
  for (const [template, names] of [
    ["default", ["greets", "tells-the-time"]],
    ["multi-agent", ["delegates-a-file", "answers-directly"]],
  ] as const) {
    it(
      `pass with --replay on a bundle fresh from goondan init --template ${template}, with no API key`,
      async () => {
        const dir = join(scratch, template);
        expect((await goondan(["init", dir, "--template", template])).code).toBe(0);
        const run = await goondan(["eval", dir, "--replay", "--state-root", join(scratch, `state-${template}`)]);
        expect(run.stderr).toBe("");
        for (const name of names) expect(run.stdout).toMatch(new RegExp(`PASS\\s+smoke/${name}\\s`));
        expect(run.code).toBe(0);
      },
      SLOW,
    );
  }

  it(
    "pass with --replay on the repository's bundled example",
    async () => {
      const run = await goondan(["eval", REPO, "--replay", "--state-root", join(scratch, "state-repo")]);
      expect(run.stdout).toContain("2/2 passed");
      expect(run.code).toBe(0);
    },
    SLOW,
  );
});
