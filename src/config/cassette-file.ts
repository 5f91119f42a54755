/**
 * The replay Model's cassette (`spec.options.cassette`): like every file a bundle names, it must be
 * bundle-relative and stay inside the bundle (symlinks followed), be a regular file (never a FIFO, a device
 * or a directory) and hold at most MAX_CASSETTE_BYTES. Validation (check-files), the agent's model factory
 * (resolveCassette) and the replay model's read (readCassetteRecords) apply the same rules, the read with a
 * capped, non-blocking read (regular-file.ts). A cassette that does not exist yet is only a warning at
 * validation: `goondan run --record` writes it.
 */
import { ConfigError } from "../shared/errors.ts";
import { resolveBundlePath } from "./bundle-path.ts";
import type { IssueCode } from "./issue-codes.ts";
import { inspectRegularFile, readRegularFile, type RegularFileProblem } from "./regular-file.ts";

/** 16 MiB: thousands of recorded replies. */
export const MAX_CASSETTE_BYTES = 16 * 1024 * 1024;

export interface CassetteIssue {
  code: Extract<
    IssueCode,
    | "E_CONFIG_ENTRY_OUTSIDE_BUNDLE"
    | "E_CONFIG_CASSETTE_NOT_REGULAR"
    | "E_CONFIG_CASSETTE_TOO_LARGE"
    | "W_CONFIG_CASSETTE_MISSING"
  >;
  message: string;
  suggestion?: string;
}

const CODES: Record<RegularFileProblem["problem"], CassetteIssue["code"]> = {
  missing: "W_CONFIG_CASSETTE_MISSING",
  "not-regular": "E_CONFIG_CASSETTE_NOT_REGULAR",
  "too-large": "E_CONFIG_CASSETTE_TOO_LARGE",
};

type Located = { path: string } | { issue: CassetteIssue };

function locate(options: { baseDir: string; cassette: string }): Located {
  const resolved = resolveBundlePath({ baseDir: options.baseDir, relativePath: options.cassette });
  if (!resolved.ok) {
    return {
      issue: {
        code: "E_CONFIG_ENTRY_OUTSIDE_BUNDLE",
        message: `expected the cassette path to be relative and inside the bundle, found ${resolved.reason === "absolute" ? "an absolute path" : "a path that leaves the bundle"}: ${options.cassette}`,
        suggestion: "keep cassettes in the bundle, e.g. ./cassettes/<name>.jsonl",
      },
    };
  }
  const found = inspectRegularFile({
    path: resolved.path,
    maxBytes: MAX_CASSETTE_BYTES,
    what: "cassette",
    written: options.cassette,
  });
  if (found === undefined) return { path: resolved.path };
  return {
    issue: {
      code: CODES[found.problem],
      message: found.message,
      ...(found.problem === "missing" ? { suggestion: "record one with 'goondan run --record <file>'" } : {}),
    },
  };
}

/** What validation reports about a cassette path (undefined when it names a readable cassette). */
export function cassetteIssue(options: { baseDir: string; cassette: string }): CassetteIssue | undefined {
  const located = locate(options);
  return "issue" in located ? located.issue : undefined;
}

/** The absolute path of a cassette the agent may read; a ConfigError (E_CONFIG_CASSETTE_NOT_FOUND when missing) otherwise. */
export function resolveCassette(options: { baseDir: string; cassette: string; where: string }): string {
  const located = locate(options);
  if ("path" in located) return located.path;
  const { code, message, suggestion } = located.issue;
  throw new ConfigError(
    code === "W_CONFIG_CASSETTE_MISSING" ? "E_CONFIG_CASSETTE_NOT_FOUND" : code,
    `${options.where}: ${message}`,
    suggestion === undefined ? {} : { suggestion },
  );
}

/** The cassette's JSON lines (lines that do not parse are skipped), read with the same rules. */
export function readCassetteRecords(path: string): unknown[] {
  const read = readRegularFile({ path, maxBytes: MAX_CASSETTE_BYTES, what: "cassette", written: path });
  if (!("text" in read)) {
    if (read.problem === "missing") return []; // replays as E_MODEL_REPLAY_EXHAUSTED
    throw new ConfigError(CODES[read.problem], read.message);
  }
  return read.text.split("\n").flatMap((line) => {
    if (line.trim() === "") return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch {
      return [];
    }
  });
}
