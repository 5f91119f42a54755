/**
 * The shared fixture of the operator command tests (logs, instance, restart, doctor): temporary state roots, captured
 * CLI output, a state root's store seeded as an orchestrator would have left it, an owner file, and fake APIs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIo } from "../../../src/cli/command.ts";
import { createMessage } from "../../../src/agent/conversation/message-factory.ts";
import type { RuntimeEvent } from "../../../src/protocol/runtime-event.ts";
import { instancePaths } from "../../../src/shared/state-paths.ts";
import { stateDatabasePath } from "../../../src/store/open-state-store.ts";
import { SqliteStore } from "../../../src/store/sqlite/sqlite-store.ts";

const dirs: string[] = [];
export const servers: { stop(force?: boolean): void }[] = [];
/** For afterEach: removes the state roots and stops the fake APIs of the test that ended. */
export function cleanUpOperatorFixtures(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const server of servers.splice(0)) server.stop(true);
}

export function stateRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-operator-"));
  dirs.push(dir);
  return dir;
}

export function capture(env: Record<string, string | undefined> = {}, cwd = process.cwd()) {
  const out = { stdout: "", stderr: "" };
  const io: CliIo = { stdout: (text) => (out.stdout += text), stderr: (text) => (out.stderr += text), env, cwd };
  return { io, out };
}

/** Gives the state root's store an instance with `messages` committed messages and `events` runtime events, and a workdir. */
export async function seedInstance(
  root: string,
  options: { swarm?: string; agent: string; instanceKey: string; events?: object[]; messages?: number },
) {
  const swarm = options.swarm ?? "team";
  const paths = instancePaths({
    stateRoot: root,
    swarmInstanceKey: swarm,
    agent: options.agent,
    instanceKey: options.instanceKey,
  });
  mkdirSync(paths.workdir, { recursive: true });
  await appendToStore(root, async (store) => {
    const changes = Array.from({ length: options.messages ?? 0 }, (_, index) => ({
      type: "append" as const,
      message: createMessage({
        id: `m${index}`,
        data: { role: "user", content: `message ${index}` },
        source: { type: "user" },
        now: 0,
      }),
    }));
    await store.commit(
      { swarm, agent: options.agent, instanceKey: options.instanceKey },
      { changes, extensionState: { seeded: true } },
    );
    store.appendRuntimeEvents(swarm, (options.events ?? []) as RuntimeEvent[]);
  });
  return paths;
}

/** Writes to the state root's store as an orchestrator would, from its own connection. */
export async function appendToStore(root: string, write: (store: SqliteStore) => Promise<void> | void): Promise<void> {
  const store = new SqliteStore(stateDatabasePath(root));
  await write(store);
  store.flush();
  await store.close();
}

export const event = (at: string, agent: string, instanceKey: string, type: string, extra: object = {}) => ({
  at,
  agent,
  instanceKey,
  type,
  traceId: "t",
  spanId: "s",
  ...extra,
});

/** The owner file `goondan run` writes (src/orchestrator/state-root-lock.ts). */
export function writeOwner(root: string, owner: { pid: number; port: number; host: string }) {
  writeFileSync(join(root, "orchestrator.json"), JSON.stringify({ ...owner, startedAt: new Date().toISOString() }));
}

export async function deadPid(): Promise<number> {
  const proc = Bun.spawn(["true"]);
  await proc.exited;
  return proc.pid;
}

export function fakeApi(handler: (request: Request) => Response | Promise<Response>) {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  servers.push(server);
  return String(server.port);
}
