/**
 * Store faults as coded errors, for every backend: a write the store cannot make now (`E_STORE_UNAVAILABLE`: the
 * disk is full, an I/O error, the database locked past its timeout, the cluster's log unreachable), which the HTTP
 * API answers 503 with Retry-After and which passes once the cause does, and a database found damaged
 * (`E_STORE_CORRUPT`), which does not pass by itself: the message names the file and the remedy. `storeFault` turns
 * what a backend threw into one of them (anything else is returned as it was: a bug of ours stays a bug).
 */
import { describe, isGoondanError, SystemError } from "../shared/errors.ts";

export const STORE_UNAVAILABLE = "E_STORE_UNAVAILABLE";
export const STORE_CORRUPT = "E_STORE_CORRUPT";

/** Seconds a client is told to wait before it sends a refused event again (Retry-After). */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** SQLite's primary result codes that mean "not now" (the machine), not "never" (our bug) or "damaged". */
const UNAVAILABLE = "SQLITE_FULL SQLITE_IOERR SQLITE_BUSY SQLITE_LOCKED SQLITE_CANTOPEN SQLITE_NOMEM".split(" ");
const CORRUPT = "SQLITE_CORRUPT SQLITE_NOTADB".split(" ");
const ERRNO_UNAVAILABLE = ["ENOSPC", "EIO", "EDQUOT", "EROFS"];

const primary = (code: string): string => code.replace(/^(SQLITE_[A-Z]+)_.*$/, "$1");

/** The remedy for a damaged database file. */
export function corruptSuggestion(file: string): string {
  return `stop goondan and restore ${file} from a backup (\`goondan backup\` makes one); the damaged file and its -wal and -shm files must be moved aside first (docs/limits.md, "Store faults")`;
}

/** True for a coded store fault that passes once its cause does (a full disk freed, NATS back). */
export function isStoreUnavailable(error: unknown): boolean {
  return isGoondanError(error) && (error.code === STORE_UNAVAILABLE || error.code === "E_CLUSTER_UNAVAILABLE");
}

/**
 * What `error` (thrown by a backend while it worked on `file`) means for a caller: E_STORE_UNAVAILABLE,
 * E_STORE_CORRUPT, or the error itself when it is neither (or already coded).
 */
export function storeFault(error: unknown, file: string): unknown {
  if (isGoondanError(error)) return error;
  const { code = "", message } = describe(error);
  // An fsync or a write of the log fails with an errno code: the machine, not us.
  if (ERRNO_UNAVAILABLE.includes(code)) return unavailable(file, message, error);
  if (UNAVAILABLE.includes(primary(code))) return unavailable(file, `${message} (${code})`, error);
  if (CORRUPT.includes(primary(code)))
    return new SystemError(STORE_CORRUPT, `the state database ${file} is damaged: ${message} (${code})`, {
      suggestion: corruptSuggestion(file),
      cause: error,
    });
  return error;
}

function unavailable(file: string, detail: string, cause: unknown): SystemError {
  return new SystemError(STORE_UNAVAILABLE, `the store cannot write to ${file} now: ${detail}`, {
    suggestion: `free space on the state root's disk (or fix the I/O fault); goondan goes on by itself once writes succeed, so send the event again after the Retry-After delay`,
    cause,
  });
}
