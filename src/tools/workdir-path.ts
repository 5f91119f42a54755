/**
 * Confinement of model-supplied paths to a root directory (the instance's workdir, or a Tool's wider
 * `config.root`). A path is refused when it escapes lexically (`..`, an absolute path elsewhere) or through
 * a symlink: the real path of its nearest existing ancestor must stay inside the real root.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { ToolFault } from "./tool-errors.ts";

export const PATH_OUTSIDE_ROOT = "E_PATH_OUTSIDE_WORKDIR";
export const PATH_INVALID = "E_PATH_INVALID";

export interface ConfinedPath {
  /** Absolute path, inside the root, to operate on. */
  absolute: string;
  /** The path relative to the root, `.` for the root itself (for results shown to the model). */
  relative: string;
}

/**
 * Resolves `path` (relative to `base`, or absolute) and checks it stays inside `root`, symlinks included.
 * Throws ToolFault E_PATH_OUTSIDE_WORKDIR / E_PATH_INVALID.
 */
export async function resolveConfinedPath(options: {
  root: string;
  path: string;
  /** Where relative paths start (and what `relative` is relative to). Default: root. */
  base?: string;
}): Promise<ConfinedPath> {
  const { path } = options;
  if (typeof path !== "string" || path.length === 0) throw new ToolFault(PATH_INVALID, "the path is empty");
  if (path.includes("\0")) throw new ToolFault(PATH_INVALID, "the path contains a NUL character");
  const root = resolve(options.root);
  const base = resolve(options.base ?? root);
  const absolute = isAbsolute(path) ? resolve(path) : resolve(base, path);
  if (!isInside(root, absolute)) throw outside(path);
  const realRoot = await realpathOfNearest(root);
  const realTarget = await realpathOfNearest(absolute);
  if (!isInside(realRoot, realTarget)) throw outside(path, true);
  if (!isInside(base, absolute)) return { absolute, relative: absolute };
  const relativePath = relative(base, absolute);
  return { absolute, relative: relativePath === "" ? "." : relativePath.split(sep).join("/") };
}

/** True when `child` is `parent` or below it (both absolute, normalized). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The real path of `path`, or of its nearest existing ancestor with the missing tail appended. */
export async function realpathOfNearest(path: string): Promise<string> {
  let current = path;
  const tail: string[] = [];
  for (;;) {
    try {
      await lstat(current);
      const real = await realpath(current).catch(async (error: NodeJS.ErrnoException) => {
        // A dangling symlink: judge it by where it points.
        if (error.code === "ENOENT") return realpathOfDangling(current);
        throw error;
      });
      return tail.length === 0 ? real : resolve(real, ...tail.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" && (error as NodeJS.ErrnoException).code !== "ENOTDIR")
        throw error;
      const parent = dirname(current);
      if (parent === current) return resolve(current, ...tail.reverse());
      tail.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
      current = parent;
    }
  }
}

async function realpathOfDangling(link: string): Promise<string> {
  const target = await readlink(link);
  return realpathOfNearest(resolve(dirname(link), target));
}

function outside(path: string, viaSymlink = false): ToolFault {
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return new ToolFault(
    PATH_OUTSIDE_ROOT,
    `the path ${JSON.stringify(shown)} is outside the workspace${viaSymlink ? " (through a symlink)" : ""}`,
    {
      suggestion: "Use a path relative to the workspace directory, without '..' segments that leave it.",
    },
  );
}
