import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseTools, errorOf, okOutput, type BaseToolHarness } from "./base-tools.ts";

let base: string;
let workdir: string;
let tools: BaseToolHarness;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "goondan-fs-"));
  workdir = join(base, "work");
  await mkdir(workdir);
  await writeFile(join(base, "outside.txt"), "secret");
  await symlink(join(base, "outside.txt"), join(workdir, "link-out.txt"));
  await symlink(base, join(workdir, "dir-out"));
  tools = await baseTools({ context: { workdir } });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("file-system__write and read", () => {
  it("writes a file (creating parent directories) and reads it back", async () => {
    expect(okOutput(await tools.call("file-system__write", { path: "notes/today.txt", content: "héllo" }))).toEqual({
      path: "notes/today.txt",
      bytesWritten: 6,
      size: 6,
      appended: false,
    });
    expect(await readFile(join(workdir, "notes/today.txt"), "utf8")).toBe("héllo");
    expect(okOutput(await tools.call("file-system__read", { path: "notes/today.txt" }))).toEqual({
      path: "notes/today.txt",
      size: 6,
      offset: 0,
      bytesRead: 6,
      truncated: false,
      content: "héllo",
    });
  });

  it("appends when asked", async () => {
    await tools.call("file-system__write", { path: "log.txt", content: "a" });
    await tools.call("file-system__write", { path: "log.txt", content: "b", append: true });
    expect(okOutput(await tools.call("file-system__read", { path: "log.txt" })).content).toBe("ab");
  });

  it("caps a read at maxBytes and reads from an offset", async () => {
    await writeFile(join(workdir, "big.txt"), "0123456789".repeat(20_000));
    const first = okOutput(await tools.call("file-system__read", { path: "big.txt" }));
    expect(first.bytesRead).toBe(100_000);
    expect(first.truncated).toBe(true);
    expect(first.size).toBe(200_000);
    const part = okOutput(await tools.call("file-system__read", { path: "big.txt", offset: 5, maxBytes: 3 }));
    expect(part.content).toBe("567");
  });

  it("returns a binary file base64-encoded", async () => {
    await writeFile(join(workdir, "blob.bin"), Buffer.from([0, 1, 2, 255]));
    expect(okOutput(await tools.call("file-system__read", { path: "blob.bin" }))).toMatchObject({
      binary: true,
      encoding: "base64",
      content: "AAEC/w==",
      bytesRead: 4,
      truncated: false,
    });
  });

  it("refuses paths that leave the workspace, by '..', absolute path or symlink", async () => {
    for (const path of [
      "../outside.txt",
      join(base, "outside.txt"),
      "link-out.txt",
      "dir-out/outside.txt",
      "/etc/passwd",
    ]) {
      expect({ path, code: errorOf(await tools.call("file-system__read", { path })).code }).toEqual({
        path,
        code: "E_PATH_OUTSIDE_WORKDIR",
      });
    }
    expect(errorOf(await tools.call("file-system__write", { path: "../escape.txt", content: "x" })).code).toBe(
      "E_PATH_OUTSIDE_WORKDIR",
    );
    expect(errorOf(await tools.call("file-system__write", { path: "dir-out/escape.txt", content: "x" })).code).toBe(
      "E_PATH_OUTSIDE_WORKDIR",
    );
    expect(await Bun.file(join(base, "escape.txt")).exists()).toBe(false);
  });

  it("explains a missing file and a directory read", async () => {
    const missing = errorOf(await tools.call("file-system__read", { path: "nope.txt" }));
    expect(missing.code).toBe("E_FS_NOT_FOUND");
    expect(missing.suggestion).toContain("file-system__list");
    expect(errorOf(await tools.call("file-system__read", { path: "notes" })).code).toBe("E_FS_IS_DIRECTORY");
  });

  it("lowers a maxBytes above config.maxReadBytes to it, and rounds fractional limits down", async () => {
    await writeFile(join(workdir, "bigger.txt"), "0123456789".repeat(30_000));
    const capped = okOutput(await tools.call("file-system__read", { path: "bigger.txt", maxBytes: 3_000_000 })) as {
      content: string;
      truncated: boolean;
    };
    expect(capped.content.length).toBe(250_000);
    expect(capped.truncated).toBe(true);
    const part = okOutput(await tools.call("file-system__read", { path: "big.txt", offset: 5.7, maxBytes: 3.9 }));
    expect(part).toMatchObject({ content: "567", truncated: true });
  });
});

describe("file-system__list and mkdir", () => {
  it("creates directories and lists entries with types", async () => {
    expect(okOutput(await tools.call("file-system__mkdir", { path: "a/b/c" }))).toEqual({
      path: "a/b/c",
      created: true,
      recursive: true,
    });
    expect(okOutput(await tools.call("file-system__mkdir", { path: "a/b/c" }))).toEqual({
      path: "a/b/c",
      created: false,
      recursive: true,
    });
    await writeFile(join(workdir, "a", "file.txt"), "xyz");
    expect(okOutput(await tools.call("file-system__list", { path: "a" }))).toEqual({
      path: "a",
      entries: [
        { path: "b", type: "directory" },
        { path: "file.txt", type: "file", size: 3 },
      ],
      truncated: false,
    });
    const recursive = okOutput(await tools.call("file-system__list", { path: "a", recursive: true }));
    expect((recursive.entries as { path: string }[]).map((entry) => entry.path)).toEqual(["b", "file.txt", "b/c"]);
  });

  it("lists symlinks without following them out of the workspace", async () => {
    const listing = okOutput(await tools.call("file-system__list", { recursive: true }));
    const entries = listing.entries as { path: string; type: string }[];
    expect(entries.find((entry) => entry.path === "dir-out")?.type).toBe("symlink");
    expect(entries.some((entry) => entry.path.startsWith("dir-out/"))).toBe(false);
  });

  it("stops at maxEntries", async () => {
    const listing = okOutput(await tools.call("file-system__list", { maxEntries: 2 }));
    expect((listing.entries as unknown[]).length).toBe(2);
    expect(listing.truncated).toBe(true);
  });

  it("refuses to list or create outside the workspace", async () => {
    expect(errorOf(await tools.call("file-system__list", { path: ".." })).code).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(errorOf(await tools.call("file-system__mkdir", { path: "../made" })).code).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(errorOf(await tools.call("file-system__mkdir", { path: "dir-out/made" })).code).toBe(
      "E_PATH_OUTSIDE_WORKDIR",
    );
  });
});

describe("file-system config.root", () => {
  it("widens the root when the Tool's config says so", async () => {
    const wide = await baseTools({ context: { workdir }, config: { "file-system": { root: base } } });
    expect(okOutput(await wide.call("file-system__read", { path: join(base, "outside.txt") })).content).toBe("secret");
    expect(okOutput(await wide.call("file-system__read", { path: "../outside.txt" })).path).toBe(
      join(base, "outside.txt"),
    );
    expect(okOutput(await wide.call("file-system__read", { path: "log.txt" })).content).toBe("ab");
    expect(errorOf(await wide.call("file-system__read", { path: "/etc/passwd" })).code).toBe("E_PATH_OUTSIDE_WORKDIR");
  });
});
