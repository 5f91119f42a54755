import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { bundleAgentEntry } from "../../src/daemon/agent-entry-bundle.ts";
import { AGENT_ENTRY_SCRIPT } from "../../src/protocol/child-entry.ts";
import { silentLogger } from "../../src/shared/logger.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
const tempDir = () => {
  const root = mkdtempSync(join(tmpdir(), "goondan-entry-bundle-"));
  roots.push(root);
  return root;
};

/** An entry script importing a module of its own, in a folder of its own. */
function sourceTree(): { entry: string; dependency: string } {
  const dir = tempDir();
  const entry = join(dir, "entry.ts");
  const dependency = join(dir, "dependency.ts");
  writeFileSync(dependency, 'export const word = "first";\n');
  writeFileSync(entry, 'import { word } from "./dependency.ts";\nconsole.log(word);\n');
  return { entry, dependency };
}

const run = async (script: string) => {
  const proc = Bun.spawn([process.execPath, script], { stdout: "pipe" });
  await proc.exited;
  return (await new Response(proc.stdout).text()).trim();
};

describe("bundleAgentEntry", () => {
  it("builds once and reuses the build while no input changed, then builds again", async () => {
    const { entry: sourceEntry, dependency } = sourceTree();
    const stateRoot = tempDir();
    const cacheDir = join(stateRoot, "cache", "agent-entry");
    const options = { stateRoot, logger: silentLogger(), sourceEntry };
    const first = await bundleAgentEntry(options);
    expect(first).not.toBe(sourceEntry);
    expect(first.startsWith(`${cacheDir}/`)).toBe(true);
    expect(await run(first)).toBe("first");
    expect(await bundleAgentEntry(options)).toBe(first);

    writeFileSync(dependency, 'export const word = "second";\n');
    const second = await bundleAgentEntry(options);
    expect(second).not.toBe(first);
    expect(await run(second)).toBe("second");
    // The first build is still marked by this live process: its children may still load its chunks.
    expect(existsSync(first)).toBe(true);

    // Once the only process that used it is gone, the next start removes it.
    const oldBuild = dirname(first);
    rmSync(join(oldBuild, `in-use-${process.pid}`));
    writeFileSync(join(oldBuild, "in-use-999999999"), "");
    expect(await bundleAgentEntry(options)).toBe(second);
    expect(existsSync(oldBuild)).toBe(false);
    expect(readdirSync(cacheDir).sort()).toEqual([dirname(second).slice(cacheDir.length + 1), "current.json"]);
  });

  it("removes a build an earlier process with this process's pid marked (every start in a container)", async () => {
    const { entry: sourceEntry } = sourceTree();
    const stateRoot = tempDir();
    const earlier = join(stateRoot, "cache", "agent-entry", "b-7-earlier");
    mkdirSync(earlier, { recursive: true });
    writeFileSync(join(earlier, `in-use-${process.pid}`), "");
    await bundleAgentEntry({ stateRoot, logger: silentLogger(), sourceEntry });
    expect(existsSync(earlier)).toBe(false);
  });

  it("removes the builds of the layout before the cache whose orchestrator is gone", async () => {
    const { entry: sourceEntry } = sourceTree();
    const stateRoot = tempDir();
    const stale = join(stateRoot, "cache", "agent-entry-999999999-old");
    mkdirSync(stale, { recursive: true });
    await bundleAgentEntry({ stateRoot, logger: silentLogger(), sourceEntry });
    expect(existsSync(stale)).toBe(false);
  });

  it("reuses the build of goondan's own entry at the next start on the same state root", async () => {
    const stateRoot = tempDir();
    const first = await bundleAgentEntry({ stateRoot, logger: silentLogger() });
    expect(first.startsWith(join(stateRoot, "cache", "agent-entry"))).toBe(true);
    expect(await bundleAgentEntry({ stateRoot, logger: silentLogger() })).toBe(first);
    const builds = readdirSync(join(stateRoot, "cache", "agent-entry")).filter((name) => name.startsWith("b-"));
    expect(builds).toEqual([dirname(first).split("/").at(-1) ?? ""]);
  });

  it("falls back to the given source entry when the build fails", async () => {
    const root = tempDir();
    const broken = join(root, "broken-entry.ts");
    writeFileSync(broken, "import { nothing } from './does-not-exist.ts';\nnothing();\n");
    expect(await bundleAgentEntry({ stateRoot: root, logger: silentLogger(), sourceEntry: broken })).toBe(broken);
    expect(readdirSync(join(root, "cache", "agent-entry")).filter((name) => name.startsWith("b-"))).toEqual([]);
  });

  it("runs children from source when GOONDAN_AGENT_FROM_SOURCE=1", async () => {
    expect(
      await bundleAgentEntry({
        stateRoot: tempDir(),
        logger: silentLogger(),
        env: { GOONDAN_AGENT_FROM_SOURCE: "1" },
      }),
    ).toBe(AGENT_ENTRY_SCRIPT);
  });
});
