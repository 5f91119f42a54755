/**
 * Bundle-relative paths (entries, prompt files, cassettes): they must be relative and stay inside the
 * bundle directory, also after following symlinks.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

export type BundlePath = { ok: true; path: string; exists: boolean } | { ok: false; reason: "absolute" | "escapes" };

export function resolveBundlePath(options: { baseDir: string; relativePath: string }): BundlePath {
  const { baseDir, relativePath } = options;
  if (isAbsolute(relativePath) || /^[A-Za-z]:[\\/]/.test(relativePath)) return { ok: false, reason: "absolute" };
  const path = resolve(baseDir, relativePath);
  if (!isInside(baseDir, path)) return { ok: false, reason: "escapes" };
  const exists = existsSync(path) && statSync(path).isFile();
  if (exists && !isInside(realpathSync(baseDir), realpathSync(path))) return { ok: false, reason: "escapes" };
  return { ok: true, path, exists };
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}
