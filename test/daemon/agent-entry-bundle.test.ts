import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleAgentEntry } from "../../src/daemon/agent-entry-bundle.ts";
import { AGENT_ENTRY_SCRIPT } from "../../src/protocol/child-entry.ts";
import { silentLogger } from "../../src/shared/logger.ts";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
const stateRoot = () => {
  const root = mkdtempSync(join(tmpdir(), "goondan-entry-bundle-"));
  roots.push(root);
  return root;
};

describe("bundleAgentEntry", () => {
  it("bundles the agent entry under the state root's cache and removes builds of dead orchestrators", async () => {
    const root = stateRoot();
    const stale = join(root, "cache", "agent-entry-999999999-old");
    mkdirSync(stale, { recursive: true });
    const entry = await bundleAgentEntry({ stateRoot: root, logger: silentLogger() });
    expect(entry).not.toBe(AGENT_ENTRY_SCRIPT);
    expect(entry.startsWith(join(root, "cache"))).toBe(true);
    expect(existsSync(entry)).toBe(true);
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(join(root, "cache"))).toHaveLength(1);
  });

  it("falls back to the given source entry when the build fails", async () => {
    const root = stateRoot();
    const broken = join(root, "broken-entry.ts");
    writeFileSync(broken, "import { nothing } from './does-not-exist.ts';\nnothing();\n");
    expect(await bundleAgentEntry({ stateRoot: root, logger: silentLogger(), sourceEntry: broken })).toBe(broken);
  });

  it("runs children from source when GOONDAN_AGENT_FROM_SOURCE=1", async () => {
    expect(
      await bundleAgentEntry({
        stateRoot: stateRoot(),
        logger: silentLogger(),
        env: { GOONDAN_AGENT_FROM_SOURCE: "1" },
      }),
    ).toBe(AGENT_ENTRY_SCRIPT);
  });
});
