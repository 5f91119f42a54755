import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureWritableStateRoot } from "../../src/shared/writable-state-root.ts";

const root = mkdtempSync(join(tmpdir(), "goondan-writable-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const codeOf = (run: () => void): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe("ensureWritableStateRoot", () => {
  it("creates a missing state root and leaves no probe file behind", () => {
    const stateRoot = join(root, "a", "b");
    ensureWritableStateRoot({ stateRoot });
    expect(existsSync(stateRoot)).toBe(true);
    expect(readdirSync(stateRoot)).toEqual([]);
  });

  it("passes an existing writable state root, keeping what is in it", () => {
    const stateRoot = join(root, "kept");
    ensureWritableStateRoot({ stateRoot });
    writeFileSync(join(stateRoot, "goondan.db"), "");
    ensureWritableStateRoot({ stateRoot });
    expect(readdirSync(stateRoot)).toEqual(["goondan.db"]);
  });

  it("passes other failures on as they are: a state root under a regular file is ENOTDIR, not a permission problem", () => {
    const file = join(root, "file");
    writeFileSync(file, "");
    expect(codeOf(() => ensureWritableStateRoot({ stateRoot: join(file, "state") }))).toBe("ENOTDIR");
  });
});
