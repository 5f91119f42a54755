/**
 * Naming what sits at a path that should hold a regular file (a directory, a FIFO, a device, a socket), so
 * that config issues say what was found, and so that callers can refuse it from a stat alone: opening a
 * FIFO to read it blocks until a writer appears, and a device such as /dev/urandom never ends.
 */
import type { Stats } from "node:fs";

/** `undefined` for a regular file, else what the path is ("a FIFO (named pipe)", ...). */
export function describeNonRegularFile(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  return "something that is not a regular file";
}
