/**
 * A Package dependency installed from npm (a local package fixture installed by path, as `npm install` would):
 * its Tools are referenced as `package: "@acme/goondan-tools"` and run in a real goondan process; a version
 * range is checked against the installed version; a missing (and referenced) or mismatched package is a
 * validation error naming the `npm install` to run, while a listed package nothing uses may stay uninstalled.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { main } from "../../src/cli/main.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { startLoopbackLlm, toolResults } from "../helpers/loopback-llm.ts";
import { runOnce } from "../helpers/run-once.ts";

const defer = useCleanups();
const FIXTURE = new URL("../fixtures/npm/acme-goondan-tools", import.meta.url).pathname;

function bundle(options: { range: string; install: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-npm-package-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "uses-acme", private: true }));
  writeFileSync(
    join(dir, "goondan.yaml"),
    `apiVersion: goondan.ai/v1
kind: Package
metadata: { name: uses-acme }
spec:
  version: 0.1.0
  dependencies:
    - { name: "@acme/goondan-tools", version: "${options.range}" }
---
apiVersion: goondan.ai/v1
kind: Model
metadata: { name: gpt }
spec: { provider: openai, model: gpt-4o-mini, options: { api: chat } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: crier }
spec:
  modelConfig: { modelRef: Model/gpt }
  prompt: { system: You shout. }
  tools:
    - ref: { kind: Tool, name: shout, package: "@acme/goondan-tools" }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: town }
spec: { entryAgent: Agent/crier, agents: [Agent/crier] }
`,
  );
  if (options.install) {
    const installed = Bun.spawnSync(["npm", "install", "--no-audit", "--no-fund", "--offline", FIXTURE], { cwd: dir });
    if (installed.exitCode !== 0) throw new Error(`npm install failed: ${installed.stderr.toString()}`);
  }
  return dir;
}

describe("packages from npm", () => {
  it("names the npm install to run for a package that is not installed", async () => {
    const result = await loadBundle(bundle({ range: "^1.0.0", install: false }), { checkModules: false });
    expect(result.valid).toBe(false);
    expect(result.errors).toContainEqual(
      expect.objectContaining({
        code: "E_CONFIG_PACKAGE_NOT_INSTALLED",
        path: "goondan.yaml#0.spec.dependencies[0]",
        suggestion: expect.stringContaining('npm install @acme/goondan-tools@"^1.0.0"'),
      }),
    );
  });

  it("leaves alone a listed dependency that no ref names and nobody installed", async () => {
    const dir = bundle({ range: "^1.0.0", install: false });
    const file = join(dir, "goondan.yaml");
    writeFileSync(
      file,
      (await Bun.file(file).text())
        .replace('    - ref: { kind: Tool, name: shout, package: "@acme/goondan-tools" }\n', "    []\n")
        .replace("  tools:\n    []\n", "  tools: []\n"),
    );
    const result = await loadBundle(dir, { checkModules: false });
    expect(result.errors).toEqual([]);
  });

  it("refuses an installed version outside the Package's range, naming the npm install to run", async () => {
    const result = await loadBundle(bundle({ range: "^2.0.0", install: true }), { checkModules: false });
    expect(result.errors).toContainEqual(
      expect.objectContaining({
        code: "E_CONFIG_PACKAGE_VERSION_MISMATCH",
        message: "expected @acme/goondan-tools ^2.0.0, found 1.2.0 installed",
      }),
    );
  }, 60_000);

  it("runs the package's Tool, referenced by package, in a real goondan process", async () => {
    const dir = bundle({ range: "^1.0.0", install: true });
    const loaded = await loadBundle(dir, { checkModules: false });
    expect(loaded.errors).toEqual([]);
    const llm = await startLoopbackLlm({
      respond: (request) =>
        request.body.messages.at(-1)?.role === "tool"
          ? { text: `it said ${JSON.stringify(toolResults(request).at(-1)?.content)}` }
          : { toolCalls: [{ name: "shout__loud", args: { text: "hear ye" } }] },
    });
    defer(() => llm.close());
    const result = await runOnce({ dir, env: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "sk-acme" } });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("HEAR YE!");
  }, 60_000);

  it("adds, lists and removes a package with goondan package, editing the Package's dependencies", async () => {
    const dir = bundle({ range: "^1.0.0", install: false });
    const file = join(dir, "goondan.yaml");
    await Bun.write(file, (await Bun.file(file).text()).replace(/ {2}dependencies:\n.*\n/, "  dependencies: []\n"));
    let out = "";
    const io = { stdout: (text: string) => void (out += text), stderr: () => {}, env: {}, cwd: dir };
    expect(await main(["package", "add", FIXTURE], io)).toBe(0);
    expect(out).toContain("added @acme/goondan-tools ^1.2.0 (installed 1.2.0)");
    expect(await Bun.file(file).text()).toContain('name: "@acme/goondan-tools"');
    expect((await loadBundle(dir, { checkModules: false })).errors).toEqual([]);
    out = "";
    expect(await main(["package", "list"], io)).toBe(0);
    expect(out).toMatch(/@acme\/goondan-tools\s+\^1\.2\.0\s+1\.2\.0/);
    expect(await main(["package", "remove", "@acme/goondan-tools"], io)).toBe(0);
    expect(await Bun.file(file).text()).toContain("  dependencies: []\n");
    const after = await loadBundle(dir, { checkModules: false });
    expect(after.errors.map((issue) => issue.code)).toContain("E_CONFIG_REF_NOT_FOUND");
  }, 90_000);
});
