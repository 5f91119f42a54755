/**
 * Built-in `file-system`: read, write, list and mkdir inside the agent's workspace. Relative paths start at
 * ctx.workdir; every path is confined to the root (ctx.workdir, or the Tool's `config.root` resolved against
 * it), symlinks included. Reads stop at maxBytes (default 100000, at most `config.maxReadBytes` 250000);
 * binary files (a NUL byte in the first 8 KiB) come back base64-encoded, at most 150000 bytes per read.
 * `list` can leave out directories or files (`includeDirs`, `includeFiles`, both default true) and `mkdir`
 * can refuse to create missing parents (`recursive: false`), with the public Goondan tool's meaning.
 */
import { appendFile, lstat, mkdir, open, readdir, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { configNumber, configString } from "../../tools/tool-config.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolContext, ToolHandler } from "../../tools/types.ts";
import { resolveConfinedPath, type ConfinedPath } from "../../tools/workdir-path.ts";

const DEFAULT_READ_BYTES = 100_000;
const DEFAULT_MAX_ENTRIES = 500;
/** Base64 grows 4/3: this keeps a binary read under the 256 KiB output cap. */
const MAX_BINARY_BYTES = 150_000;

function rootOf(ctx: ToolContext): string {
  const configured = configString(ctx.config, "root");
  if (configured === undefined) return ctx.workdir;
  return isAbsolute(configured) ? configured : resolve(ctx.workdir, configured);
}

function confined(ctx: ToolContext, path: unknown): Promise<ConfinedPath> {
  return resolveConfinedPath({
    root: rootOf(ctx),
    base: ctx.workdir,
    path: typeof path === "string" && path !== "" ? path : ".",
  });
}

function notFound(path: string): ToolFault {
  return new ToolFault("E_FS_NOT_FOUND", `no such file or directory: ${path}`, {
    suggestion: "Call file-system__list to see what exists.",
  });
}

export const handlers: Record<string, ToolHandler> = {
  read: async (ctx, input) => {
    const target = await confined(ctx, input.path);
    const info = await stat(target.absolute).catch(() => undefined);
    if (info === undefined) throw notFound(target.relative);
    if (info.isDirectory())
      throw new ToolFault("E_FS_IS_DIRECTORY", `${target.relative} is a directory`, {
        suggestion: "Use file-system__list for directories.",
      });
    if (!info.isFile()) throw new ToolFault("E_FS_NOT_A_FILE", `${target.relative} is not a regular file`);
    const cap = configNumber(ctx.config, "maxReadBytes", 250_000);
    const maxBytes = Math.min(
      typeof input.maxBytes === "number" ? Math.max(1, Math.floor(input.maxBytes)) : DEFAULT_READ_BYTES,
      cap,
    );
    const offset = typeof input.offset === "number" ? Math.max(0, Math.floor(input.offset)) : 0;
    const length = Math.max(0, Math.min(maxBytes, info.size - offset));
    const buffer = Buffer.alloc(length);
    const handle = await open(target.absolute, "r");
    let read = 0;
    try {
      while (read < length) {
        const { bytesRead } = await handle.read(buffer, read, length - read, offset + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
    } finally {
      await handle.close();
    }
    const bytes = buffer.subarray(0, read);
    const truncated = offset + read < info.size;
    if (bytes.subarray(0, 8192).includes(0)) {
      const kept = bytes.subarray(0, MAX_BINARY_BYTES);
      const more = offset + kept.byteLength < info.size;
      return {
        path: target.relative,
        size: info.size,
        offset,
        bytesRead: kept.byteLength,
        truncated: more,
        binary: true,
        encoding: "base64",
        content: kept.toString("base64"),
      };
    }
    let content = bytes.toString("utf8");
    if (truncated && content.endsWith("\uFFFD")) content = content.slice(0, -1);
    return { path: target.relative, size: info.size, offset, bytesRead: read, truncated, content };
  },
  write: async (ctx, input) => {
    const target = await confined(ctx, input.path);
    const content = typeof input.content === "string" ? input.content : "";
    const existing = await lstat(target.absolute).catch(() => undefined);
    if (existing?.isDirectory()) throw new ToolFault("E_FS_IS_DIRECTORY", `${target.relative} is a directory`);
    // The parent is confined too (it is an ancestor of a confined path); create it.
    await mkdir(dirname(target.absolute), { recursive: true });
    if (input.append === true) await appendFile(target.absolute, content);
    else await writeFile(target.absolute, content);
    const size = (await stat(target.absolute)).size;
    return { path: target.relative, bytesWritten: Buffer.byteLength(content), size, appended: input.append === true };
  },
  list: async (ctx, input) => {
    const target = await confined(ctx, input.path);
    const info = await stat(target.absolute).catch(() => undefined);
    if (info === undefined) throw notFound(target.relative);
    if (!info.isDirectory()) throw new ToolFault("E_FS_NOT_A_DIRECTORY", `${target.relative} is not a directory`);
    const maxEntries =
      typeof input.maxEntries === "number"
        ? Math.min(5000, Math.max(1, Math.round(input.maxEntries)))
        : DEFAULT_MAX_ENTRIES;
    const listed = { directory: input.includeDirs !== false, file: input.includeFiles !== false };
    const entries: { path: string; type: string; size?: number }[] = [];
    const queue: string[] = [""];
    let truncated = false;
    while (queue.length > 0 && !truncated) {
      const relativeDir = queue.shift()!;
      const children = await readdir(join(target.absolute, relativeDir), { withFileTypes: true });
      children.sort((a, b) => a.name.localeCompare(b.name));
      for (const child of children) {
        if (entries.length >= maxEntries) {
          truncated = true;
          break;
        }
        const path = relativeDir === "" ? child.name : `${relativeDir}/${child.name}`;
        const type = child.isFile()
          ? "file"
          : child.isDirectory()
            ? "directory"
            : child.isSymbolicLink()
              ? "symlink"
              : "other";
        // Symlinked directories are not followed: they may point outside the root.
        if (type === "directory" && input.recursive === true) queue.push(path);
        if ((type === "directory" && !listed.directory) || (type === "file" && !listed.file)) continue;
        const entry: { path: string; type: string; size?: number } = { path, type };
        if (type === "file") entry.size = (await lstat(join(target.absolute, path)).catch(() => undefined))?.size ?? 0;
        entries.push(entry);
      }
    }
    return { path: target.relative, entries, truncated };
  },
  mkdir: async (ctx, input) => {
    const target = await confined(ctx, input.path);
    const existing = await stat(target.absolute).catch(() => undefined);
    if (existing !== undefined && !existing.isDirectory())
      throw new ToolFault("E_FS_NOT_A_DIRECTORY", `${target.relative} exists and is not a directory`);
    const recursive = input.recursive !== false;
    if (
      !recursive &&
      existing === undefined &&
      (await stat(dirname(target.absolute)).catch(() => undefined)) === undefined
    ) {
      throw new ToolFault("E_FS_NOT_FOUND", `the parent directory of ${target.relative} does not exist`, {
        suggestion: "Create the parent first, or call mkdir with recursive true.",
      });
    }
    await mkdir(target.absolute, { recursive: true });
    return { path: target.relative, created: existing === undefined, recursive };
  },
};
