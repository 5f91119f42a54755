/**
 * The state root's owner file, `<stateRoot>/orchestrator.json` ({pid, port, host, startedAt}): a running
 * `goondan run` writes it at start (its API address once it listens) and removes it at exit, so operator
 * commands that touch instance files (`goondan instance delete`) know a live orchestrator owns the state
 * root even when its API does not answer them. A file whose pid is no longer alive (kill -9, power loss)
 * is stale and ignored.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const STATE_ROOT_LOCK_FILE = "orchestrator.json";

export interface StateRootOwner {
  pid: number;
  /** The HTTP API's address; null while it does not listen (yet), or with `run --input`. */
  port: number | null;
  host: string | null;
  startedAt: string;
}

export interface StateRootLock {
  /** Records the HTTP API's address once it listens. */
  listening(address: { port: number; host: string }): void;
  /** Removes the file, if it is still ours. */
  release(): void;
}

export function stateRootLockPath(stateRoot: string): string {
  return join(stateRoot, STATE_ROOT_LOCK_FILE);
}

/** Writes the owner file for this process (replacing a stale one). */
export function writeStateRootLock(options: { stateRoot: string; pid?: number; now?: () => Date }): StateRootLock {
  const file = stateRootLockPath(options.stateRoot);
  const owner: StateRootOwner = {
    pid: options.pid ?? process.pid,
    port: null,
    host: null,
    startedAt: (options.now?.() ?? new Date()).toISOString(),
  };
  const write = (): void => {
    mkdirSync(options.stateRoot, { recursive: true });
    const temp = `${file}.${owner.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(owner)}\n`);
    renameSync(temp, file);
  };
  write();
  return {
    listening(address) {
      owner.port = address.port;
      owner.host = address.host;
      write();
    },
    release() {
      if (readOwnerFile(file)?.pid === owner.pid) rmSync(file, { force: true });
    },
  };
}

/** The live orchestrator that owns the state root, or undefined (no file, unreadable, or its pid is dead). */
export function readStateRootLock(stateRoot: string): StateRootOwner | undefined {
  const owner = readOwnerFile(stateRootLockPath(stateRoot));
  return owner !== undefined && isAlive(owner.pid) ? owner : undefined;
}

function readOwnerFile(file: string): StateRootOwner | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<StateRootOwner>;
    if (typeof parsed.pid !== "number" || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    return {
      pid: parsed.pid,
      port: typeof parsed.port === "number" ? parsed.port : null,
      host: typeof parsed.host === "string" ? parsed.host : null,
      startedAt: typeof parsed.startedAt === "string" ? parsed.startedAt : "",
    };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
