import { describe, expect, it } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { startWatchReload } from "../../src/daemon/watch-reload.ts";
import { createLogger } from "../../src/shared/logger.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { copyWatchFixture } from "../fixtures/reload/watch-fixture.ts";

const defer = useCleanups();

describe("startWatchReload", () => {
  it("logs an invalid change once, with its issues, and reloads nothing", async () => {
    const { dir, bundle } = await copyWatchFixture({ defer, prefix: "goondan-watch-reload-" });
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger("test", {
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
      level: "debug",
    });
    let reloads = 0;
    const watcher = await startWatchReload({
      initial: bundle,
      apply: async () => {
        reloads++;
      },
      load: () => loadBundle(dir, { checkModules: false }),
      logger,
      debounceMs: 50,
    });
    defer(() => watcher.close());
    const yaml = join(dir, "goondan.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace('tools: ["Tool/echo"]', 'tools: ["Tool/missing"]'));
    const deadline = Date.now() + 5000;
    while (!lines.some((line) => line.level === 50) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await watcher.idle();
    const reports = lines.filter((line) => (line.level as number) >= 40);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.level).toBe(50);
    expect(JSON.stringify(reports[0]?.issues)).toContain("E_CONFIG_REF_NOT_FOUND");
    expect(reloads).toBe(0);
  });
});
