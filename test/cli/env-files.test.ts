/**
 * Where a bundle command's variables come from: the exported environment first, then `--env-file F`, then the
 * bundle's `.env`, then the current directory's; a named file that is missing is E_CONFIG_ENV_FILE_MISSING
 * (exit 3).
 */
import { captureIo } from "./support/capture-io.ts";
import { describe, expect, it } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withEnvFiles } from "../../src/cli/env-files.ts";
import { main } from "../../src/cli/main.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();
const TEMPLATE_BUNDLE = new URL("../fixtures/bundles/tutorial-01-hello", import.meta.url).pathname;

function layout() {
  const root = mkdtempSync(join(tmpdir(), "goondan-env-files-"));
  defer(() => rmSync(root, { recursive: true, force: true }));
  const bundle = join(root, "bundle");
  const cwd = join(root, "elsewhere");
  mkdirSync(cwd);
  cpSync(TEMPLATE_BUNDLE, bundle, { recursive: true });
  return { root, bundle, cwd };
}

describe("env files", () => {
  it("lets the environment win, then --env-file, then the bundle's .env, then the current directory's", () => {
    const { root, bundle, cwd } = layout();
    writeFileSync(join(cwd, ".env"), "A=cwd\nB=cwd\nC=cwd\nD=cwd\n");
    writeFileSync(join(bundle, ".env"), "A=bundle\nB=bundle\nC=bundle\nE=bundle\n");
    writeFileSync(join(bundle, ".env.local"), "E=local\n");
    writeFileSync(join(root, "extra.env"), "A=file\nB=file\n");
    const env = withEnvFiles({ env: { A: "exported" }, cwd, bundle: "../bundle", envFile: "../extra.env" });
    expect(env).toMatchObject({ A: "exported", B: "file", C: "bundle", D: "cwd", E: "local" });
  });

  it("reads the .env of a bundle named by its goondan.yaml, and reads one file once when cwd is the bundle", () => {
    const { bundle } = layout();
    writeFileSync(join(bundle, ".env"), "ONLY=bundle\n");
    expect(withEnvFiles({ env: {}, cwd: "/", bundle: join(bundle, "goondan.yaml") })).toEqual({ ONLY: "bundle" });
    expect(withEnvFiles({ env: {}, cwd: bundle, bundle: "." })).toEqual({ ONLY: "bundle" });
  });

  it("answers a missing --env-file with E_CONFIG_ENV_FILE_MISSING, and validate with exit 3 naming the file", async () => {
    const { bundle, cwd } = layout();
    expect(() => withEnvFiles({ env: {}, cwd, bundle, envFile: "missing.env" })).toThrow(
      expect.objectContaining({ code: "E_CONFIG_ENV_FILE_MISSING" }),
    );
    const io = captureIo({ cwd });
    expect(await main(["validate", bundle, "--env-file", "missing.env"], io)).toBe(3);
    expect(io.err()).toContain(`--env-file missing.env: no such file (${join(cwd, "missing.env")})`);
  });
});
