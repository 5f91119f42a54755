import { afterEach, describe, expect, it } from "bun:test";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { validateBundleOnDisk } from "../../src/config/validate-on-disk.ts";

const FIXTURE = new URL("../fixtures/reload/live-swarm", import.meta.url).pathname;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function bundleDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-validate-"));
  dirs.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

async function withEndpoint(dir: string): Promise<void> {
  const yaml = join(dir, "goondan.yaml");
  writeFileSync(
    yaml,
    (await Bun.file(yaml).text()).replace("endpoint: __ENDPOINT__", "endpoint: http://127.0.0.1:9/v1"),
  );
}

describe("validateBundleOnDisk", () => {
  it("sees an edited tool module even after this process validated the old one", async () => {
    const dir = bundleDir();
    await withEndpoint(dir);
    const env = { LOOPBACK_API_KEY: "k" };
    expect((await loadBundle(dir, { env })).valid).toBe(true);
    writeFileSync(join(dir, "tools/greet.ts"), "export const handlers = {};\n");
    const result = await validateBundleOnDisk({ target: dir, env });
    expect(result.valid).toBe(false);
    expect(result.errors.map((issue) => issue.code)).toEqual(["E_CONFIG_HANDLER_MISSING"]);
  });

  it("reports the env vars the Swarm needs but the environment lacks", async () => {
    const dir = bundleDir();
    await withEndpoint(dir);
    const result = await validateBundleOnDisk({ target: dir, env: {}, checkModules: false });
    expect(result.valid).toBe(false);
    expect(result.errors.map((issue) => issue.code)).toEqual(["E_CONFIG_ENV_MISSING"]);
  });

  it("returns the bundle when everything holds", async () => {
    const dir = bundleDir();
    await withEndpoint(dir);
    const result = await validateBundleOnDisk({ target: dir, env: { LOOPBACK_API_KEY: "k" } });
    expect(result.errors).toEqual([]);
    expect(result.bundle?.dir).toBe(dir);
  });
});
