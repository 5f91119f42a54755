import { afterEach, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readStateRootLock, stateRootLockPath, writeStateRootLock } from "../../src/daemon/state-root-lock.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const root = () => {
  const dir = mkdtempSync(join(tmpdir(), "goondan-lock-"));
  dirs.push(dir);
  return dir;
};

describe("the state root's owner file", () => {
  it("names the running process, gains the API address once it listens, and is gone after release", () => {
    const stateRoot = root();
    const lock = writeStateRootLock({ stateRoot });
    expect(readStateRootLock(stateRoot)).toMatchObject({ pid: process.pid, port: null, host: null });
    lock.listening({ port: 4321, host: "127.0.0.1" });
    expect(readStateRootLock(stateRoot)).toMatchObject({ pid: process.pid, port: 4321, host: "127.0.0.1" });
    lock.release();
    expect(existsSync(stateRootLockPath(stateRoot))).toBe(false);
    expect(readStateRootLock(stateRoot)).toBeUndefined();
  });

  it("is ignored when its process is dead or the file is not an owner record", async () => {
    const stateRoot = root();
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    writeFileSync(stateRootLockPath(stateRoot), JSON.stringify({ pid: dead.pid, port: 1, host: "127.0.0.1" }));
    expect(readStateRootLock(stateRoot)).toBeUndefined();
    writeFileSync(stateRootLockPath(stateRoot), "not json");
    expect(readStateRootLock(stateRoot)).toBeUndefined();
  });

  it("release leaves a file another process wrote since alone", () => {
    const stateRoot = root();
    const lock = writeStateRootLock({ stateRoot, pid: 999_999_999 });
    writeStateRootLock({ stateRoot });
    lock.release();
    expect(readStateRootLock(stateRoot)).toMatchObject({ pid: process.pid });
  });
});
