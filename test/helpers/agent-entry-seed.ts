/**
 * Tests start `goondan run` on a new state root hundreds of times, and each start would bundle the same agent entry
 * again (agent-entry-bundle.ts: half a second on 2 cores). Before such a start, the test helpers copy one build made
 * once per test process into the new state root's cache; goondan then checks it as it checks any cached build (the
 * same Bun, every input unchanged) and reuses it. test/daemon/agent-entry-bundle.test.ts covers the build itself.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { bundleAgentEntry } from "../../src/daemon/agent-entry-bundle.ts";
import { silentLogger } from "../../src/shared/logger.ts";

let template: Promise<string | undefined> | undefined;

/** The shared build's cache folder, made at the first call (undefined when it could not be built). */
function templateCache(): Promise<string | undefined> {
  template ??= (async () => {
    const root = mkdtempSync(join(tmpdir(), "goondan-test-agent-entry-"));
    process.once("exit", () => rmSync(root, { recursive: true, force: true }));
    const entry = await bundleAgentEntry({ stateRoot: root, logger: silentLogger() });
    const cache = join(root, "cache", "agent-entry");
    return entry.startsWith(cache) ? cache : undefined;
  })();
  return template;
}

/** Copies the shared build into `stateRoot` unless it holds one; any failure leaves goondan to build its own. */
export async function seedAgentEntry(stateRoot: string): Promise<void> {
  const target = join(stateRoot, "cache", "agent-entry");
  if (existsSync(target)) return;
  const source = await templateCache();
  if (source === undefined) return;
  try {
    mkdirSync(dirname(target), { recursive: true });
    cpSync(source, target, { recursive: true });
  } catch {
    // an unwritable state root (a test of exactly that): goondan reports it itself
  }
}
