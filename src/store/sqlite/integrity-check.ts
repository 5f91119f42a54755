/**
 * A quick integrity check of the state database at start, bounded in time: `PRAGMA quick_check` on a worker thread
 * (integrity-thread.ts) with its own read-only connection, waited for at most `timeoutMs`. A damaged page is found
 * before the daemon says it is ready, not by the first read that lands on it. `sound`: the check passed; `damaged`:
 * it names what it found; `unchecked`: the check could not run; `unfinished`: the file is too large to check within the bound, and the check goes on in
 * the background (`later` settles with its verdict), so a start never waits on a large file.
 */
import { existsSync } from "node:fs";

export type IntegrityVerdict =
  | { type: "sound" }
  | { type: "damaged"; problems: string[] }
  | { type: "unfinished"; later: Promise<IntegrityVerdict> }
  | { type: "unchecked"; reason: string };

/** Default bound of the check at start. */
export const INTEGRITY_CHECK_TIMEOUT_MS = 3_000;

export async function checkIntegrity(options: {
  file: string;
  timeoutMs?: number;
  /** The most problems reported (quick_check's argument). Default 10. */
  maxErrors?: number;
}): Promise<IntegrityVerdict> {
  if (!existsSync(options.file)) return { type: "sound" };
  const worker = new Worker(new URL("./integrity-thread.ts", import.meta.url).href);
  const verdict = new Promise<IntegrityVerdict>((resolve) => {
    worker.onmessage = (message: MessageEvent<{ problems: string[] }>) => {
      const { problems } = message.data;
      resolve(problems.length === 0 ? { type: "sound" } : { type: "damaged", problems });
    };
    worker.onerror = (event) => resolve({ type: "unchecked", reason: event.message });
  }).finally(() => worker.terminate());
  worker.postMessage({ file: options.file, maxErrors: options.maxErrors ?? 10 });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"unfinished">((resolve) => {
    timer = setTimeout(() => resolve("unfinished"), options.timeoutMs ?? INTEGRITY_CHECK_TIMEOUT_MS);
  });
  const first = await Promise.race([verdict, bound]);
  clearTimeout(timer);
  if (first !== "unfinished") return first;
  worker.unref();
  return { type: "unfinished", later: verdict };
}
