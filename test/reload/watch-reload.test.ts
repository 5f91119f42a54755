import { afterEach, describe, expect, it } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundle } from "../../src/config/load-bundle.ts";
import type { BundleWatcher } from "../../src/config/watch-bundle.ts";
import { startWatchReload } from "../../src/orchestrator/reload/watch-reload.ts";
import { createLogger } from "../../src/shared/logger.ts";

const FIXTURE = new URL("../fixtures/reload/watch-bundle/", import.meta.url).pathname;
const open: BundleWatcher[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((watcher) => watcher.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("startWatchReload", () => {
  it("logs an invalid change once, with its issues, and reloads nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "goondan-watch-reload-"));
    dirs.push(dir);
    cpSync(FIXTURE, dir, { recursive: true });
    const first = await loadBundle(dir, { checkModules: false });
    if (!first.bundle) throw new Error(`fixture invalid: ${JSON.stringify(first.errors)}`);
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger("test", { destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }, level: "debug" });
    let reloads = 0;
    const watcher = await startWatchReload({
      orchestrator: {
        currentBundle: first.bundle,
        reload: async () => {
          reloads++;
          return { restarted: [] };
        },
      },
      load: () => loadBundle(dir, { checkModules: false }),
      logger,
      debounceMs: 50,
    });
    open.push(watcher);
    const yaml = join(dir, "goondan.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace('tools: ["Tool/echo"]', 'tools: ["Tool/missing"]'));
    const deadline = Date.now() + 5000;
    while (!lines.some((line) => line.level === 50) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await watcher.idle();
    const reports = lines.filter((line) => (line.level as number) >= 40);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.level).toBe(50);
    expect(JSON.stringify(reports[0]?.issues)).toContain("E_CONFIG_REF_NOT_FOUND");
    expect(reloads).toBe(0);
  });
});
