/**
 * Reading a file a bundle names (a prompt, a cassette) safely: only a regular file, only up to a size cap.
 * `inspectRegularFile` decides from a stat alone, so validation never opens a FIFO (which blocks) or a device
 * (which may never end); `readRegularFile` stats first too, then opens without blocking and checks the open
 * file again, and reads at most `maxBytes` + 1 bytes, so a file swapped for a FIFO or grown after the check
 * is still refused, and /dev/zero cannot make the reader grow without bound.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { describeNonRegularFile } from "./file-kind.ts";

export type RegularFileProblem =
  | { problem: "missing"; message: string }
  | { problem: "not-regular"; message: string }
  | { problem: "too-large"; message: string };

export interface RegularFileOptions {
  path: string;
  maxBytes: number;
  /** What the file is, for messages: "prompt", "cassette". */
  what: string;
  /** The path as the bundle wrote it. */
  written: string;
}

function judge(options: RegularFileOptions, info: Stats): RegularFileProblem | undefined {
  const { path, maxBytes, what, written } = options;
  const found = describeNonRegularFile(info);
  if (found !== undefined)
    return {
      problem: "not-regular",
      message: `expected the ${what} file ${written} to be a regular file, found ${found} at ${path}`,
    };
  if (info.size > maxBytes)
    return {
      problem: "too-large",
      message: `expected the ${what} file ${written} to be at most ${maxBytes} bytes, found ${info.size}`,
    };
  return undefined;
}

/** `undefined` when `path` is a regular file of at most `maxBytes`, else what is wrong with it (stat only). */
export function inspectRegularFile(options: RegularFileOptions): RegularFileProblem | undefined {
  let info: Stats;
  try {
    info = statSync(options.path);
  } catch {
    return {
      problem: "missing",
      message: `expected the ${options.what} file ${options.written} to exist, found no file at ${options.path}`,
    };
  }
  return judge(options, info);
}

/** The file's text, or what is wrong with it. Never blocks on a FIFO, never reads more than `maxBytes` + 1 bytes. */
export function readRegularFile(options: RegularFileOptions): { text: string } | RegularFileProblem {
  const before = inspectRegularFile(options);
  if (before !== undefined) return before;
  let fd: number;
  try {
    fd = openSync(options.path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return {
      problem: "missing",
      message: `expected the ${options.what} file ${options.written} to be readable at ${options.path}`,
    };
  }
  try {
    const after = judge(options, fstatSync(fd));
    if (after !== undefined) return after;
    const buffer = Buffer.allocUnsafe(options.maxBytes + 1);
    let length = 0;
    for (;;) {
      const count = readSync(fd, buffer, length, buffer.length - length, null);
      if (count === 0) break;
      length += count;
      if (length > options.maxBytes)
        return {
          problem: "too-large",
          message: `expected the ${options.what} file ${options.written} to be at most ${options.maxBytes} bytes, found more`,
        };
    }
    return { text: buffer.subarray(0, length).toString("utf8") };
  } finally {
    closeSync(fd);
  }
}
