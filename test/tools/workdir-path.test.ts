import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isInside, resolveConfinedPath } from "../../src/tools/workdir-path.ts";

let base: string;
let root: string;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "goondan-confine-"));
  root = join(base, "work");
  await mkdir(join(root, "sub"), { recursive: true });
  await writeFile(join(root, "sub", "a.txt"), "a");
  await writeFile(join(base, "secret.txt"), "s");
  await symlink(join(base, "secret.txt"), join(root, "leak.txt"));
  await symlink(base, join(root, "up"));
  await symlink(join(root, "sub"), join(root, "inner-link"));
  await symlink(join(base, "nowhere", "x"), join(root, "dangling-out"));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function codeOf(path: string): Promise<string | undefined> {
  try {
    await resolveConfinedPath({ root, path });
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe("resolveConfinedPath", () => {
  it("resolves relative paths against the root", async () => {
    expect(await resolveConfinedPath({ root, path: "sub/a.txt" })).toEqual({
      absolute: join(root, "sub", "a.txt"),
      relative: "sub/a.txt",
    });
    expect((await resolveConfinedPath({ root, path: "." })).relative).toBe(".");
  });

  it("accepts paths that do not exist yet, and absolute paths inside the root", async () => {
    expect((await resolveConfinedPath({ root, path: "new/dir/file.txt" })).relative).toBe("new/dir/file.txt");
    expect((await resolveConfinedPath({ root, path: join(root, "sub") })).relative).toBe("sub");
  });

  it("accepts '..' that stays inside", async () => {
    expect((await resolveConfinedPath({ root, path: "sub/../sub/a.txt" })).relative).toBe("sub/a.txt");
  });

  it("accepts a symlink that points inside", async () => {
    expect((await resolveConfinedPath({ root, path: "inner-link/a.txt" })).relative).toBe("inner-link/a.txt");
  });

  it("refuses '..' escapes and absolute paths elsewhere (E_PATH_OUTSIDE_WORKDIR)", async () => {
    expect(await codeOf("../secret.txt")).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(await codeOf("sub/../../secret.txt")).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(await codeOf("/etc/passwd")).toBe("E_PATH_OUTSIDE_WORKDIR");
  });

  it("refuses symlinks that leave the root, even for paths below them that do not exist", async () => {
    expect(await codeOf("leak.txt")).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(await codeOf("up/secret.txt")).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(await codeOf("up/new-file.txt")).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(await codeOf("dangling-out")).toBe("E_PATH_OUTSIDE_WORKDIR");
  });

  it("refuses empty paths and NUL characters (E_PATH_INVALID)", async () => {
    expect(await codeOf("")).toBe("E_PATH_INVALID");
    expect(await codeOf("a\0b")).toBe("E_PATH_INVALID");
  });

  it("works for a root that does not exist yet", async () => {
    const fresh = join(base, "fresh", "workdir");
    expect((await resolveConfinedPath({ root: fresh, path: "x.txt" })).absolute).toBe(join(fresh, "x.txt"));
  });
});

describe("isInside", () => {
  it("tells a prefix sibling from a child", () => {
    expect(isInside("/a/work", "/a/work/x")).toBe(true);
    expect(isInside("/a/work", "/a/work")).toBe(true);
    expect(isInside("/a/work", "/a/workshop")).toBe(false);
    expect(isInside("/a/work", "/a/..work")).toBe(false);
  });
});
