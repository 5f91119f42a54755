/**
 * The local files an entry module is made of: the entry plus every file it reaches through relative
 * import specifiers (`./x`, `../y`), followed recursively inside the bundle. Packages and absolute
 * specifiers are not followed. Unreadable files are skipped, never thrown on: the watcher uses this
 * to know which files to watch and which agent a changed helper belongs to.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, resolve, sep } from "node:path";

const EXTENSIONS = [".ts", ".tsx", ".mts", ".js", ".mjs", ".jsx", ".json"];
const scanner = new Bun.Transpiler({ loader: "tsx" });

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Resolves a relative specifier the way Bun would for a local file: as is, with an extension, or an index file. */
export function resolveLocalSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  if (isFile(base)) return base;
  for (const extension of EXTENSIONS) if (isFile(base + extension)) return base + extension;
  // `./x.js` written for a `./x.ts` file
  if (extname(base) === ".js" && isFile(base.slice(0, -3) + ".ts")) return base.slice(0, -3) + ".ts";
  for (const extension of EXTENSIONS)
    if (isFile(resolve(base, `index${extension}`))) return resolve(base, `index${extension}`);
  return undefined;
}

function directImports(file: string): string[] {
  if (extname(file) === ".json") return [];
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  let specifiers: string[];
  try {
    specifiers = scanner.scanImports(source).map((entry) => entry.path);
  } catch {
    return [];
  }
  return specifiers
    .filter((specifier) => specifier.startsWith("./") || specifier.startsWith("../"))
    .map((specifier) => resolveLocalSpecifier(file, specifier))
    .filter((path): path is string => path !== undefined);
}

export interface EntryFilesOptions {
  entry: string;
  /** Only files under this directory are followed (the bundle dir). Default: the entry's directory tree is not limited. */
  within?: string;
  /** Most files to collect, against import cycles gone wild. Default 200. */
  limit?: number;
}

/** The entry (when it exists) and the local files it imports, transitively; entry first. */
export function entryFiles(options: EntryFilesOptions): string[] {
  const limit = options.limit ?? 200;
  const within = options.within === undefined ? undefined : resolve(options.within) + sep;
  const inside = (path: string) => within === undefined || path.startsWith(within);
  const entry = resolve(options.entry);
  if (!existsSync(entry)) return [entry];
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0 && seen.size < limit) {
    const file = queue.shift() as string;
    for (const imported of directImports(file)) {
      if (seen.has(imported) || !inside(imported)) continue;
      seen.add(imported);
      queue.push(imported);
    }
  }
  return [...seen];
}
