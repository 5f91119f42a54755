/**
 * Tests start `goondan run` on a new state root hundreds of times, and each start would bundle the same agent entry
 * again (agent-entry-bundle.ts: half a second on 2 cores). Before such a start, the test helpers copy one build made
 * once per test process into the new state root's cache; goondan then checks it as it checks any cached build (the
 * same Bun, every input unchanged) and reuses it. test/daemon/agent-entry-bundle.test.ts covers the build itself.
 */
import { chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
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

/**
 * Copies the shared build into `stateRoot` unless it holds one; any failure leaves goondan to build its own. A state
 * root that does not exist yet is made only when `create` (goondan runs as this user): another user's run makes its
 * own.
 */
export async function seedAgentEntry(stateRoot: string, options: { create: boolean }): Promise<void> {
  const target = join(stateRoot, "cache", "agent-entry");
  if (existsSync(target) || (!options.create && !existsSync(stateRoot))) return;
  const source = await templateCache();
  if (source === undefined) return;
  try {
    mkdirSync(dirname(target), { recursive: true });
    cpSync(source, target, { recursive: true });
    // A state root made for another user (goondan run under setpriv as nobody) gets the copy as that user's.
    const { uid, gid } = statSync(stateRoot);
    if (uid !== process.getuid?.()) for (const path of [dirname(target), ...tree(target)]) chownSync(path, uid, gid);
  } catch {
    // an unwritable state root (a test of exactly that): goondan reports it itself
  }
}

/** `dir` and every path under it. */
function tree(dir: string): string[] {
  return [dir, ...readdirSync(dir, { recursive: true }).map((name) => join(dir, String(name)))];
}
