/**
 * Runs one child process for the bash tool safely: its own process group (setsid), killed as a whole on
 * timeout, on ctx.signal and when it exits (no stray background jobs), stdout/stderr kept up to a cap each
 * (the rest drained and counted), a flood of output ended early, a scrubbed environment, and the agent
 * process made non-dumpable first so the command cannot read the agent's own environment via /proc.
 */
import { hideProcessSecrets } from "../../tools/hide-process-secrets.ts";
import { scrubbedEnv } from "./scrubbed-env.ts";

export interface RunProcessOptions {
  argv: string[];
  cwd: string;
  stdin?: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Default: scrubbedEnv(process.env). */
  env?: Record<string, string>;
  /** Called right after the group is killed on timeout, cancellation or an output flood (not on a normal exit). */
  onForcedKill?: (processGroup: number) => void;
}

export interface ProcessOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutBytes: number;
  stderrBytes: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  cancelled: boolean;
  outputLimitExceeded: boolean;
  durationMs: number;
}

/** Past this much output in all (both streams), the process group is killed. */
const FLOOD_BYTES = 32 * 1024 * 1024;
/** How long to wait for pipes to close after the process group is gone. */
const DRAIN_GRACE_MS = 500;

export async function runProcess(options: RunProcessOptions): Promise<ProcessOutcome> {
  // The command runs as our user: keep it out of our /proc/<pid>/environ (API keys) before it starts.
  await hideProcessSecrets();
  const started = performance.now();
  const proc = Bun.spawn(options.argv, {
    cwd: options.cwd,
    env: options.env ?? scrubbedEnv(process.env),
    stdin: options.stdin === undefined ? "ignore" : Buffer.from(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  let timedOut = false;
  let cancelled = false;
  let outputLimitExceeded = false;
  let totalBytes = 0;
  const killGroup = (): void => {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      try {
        proc.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
  };
  const forceKill = (): void => {
    killGroup();
    options.onForcedKill?.(proc.pid);
  };
  const onBytes = (count: number): void => {
    totalBytes += count;
    if (totalBytes > FLOOD_BYTES && !outputLimitExceeded) {
      outputLimitExceeded = true;
      forceKill();
    }
  };
  const stdout = collect(proc.stdout, options.maxOutputBytes, onBytes);
  const stderr = collect(proc.stderr, options.maxOutputBytes, onBytes);
  const timer = setTimeout(() => {
    timedOut = true;
    forceKill();
  }, options.timeoutMs);
  const onAbort = (): void => {
    cancelled = true;
    forceKill();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await proc.exited;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    killGroup(); // background jobs left in the group would hold the pipes open
  }
  const grace = Bun.sleep(DRAIN_GRACE_MS);
  await Promise.race([Promise.all([stdout.done, stderr.done]), grace]);
  stdout.stop();
  stderr.stop();
  const out = stdout.result();
  const err = stderr.result();
  return {
    exitCode: proc.exitCode,
    signal: proc.signalCode === null || proc.signalCode === undefined ? null : String(proc.signalCode),
    stdout: out.text,
    stderr: err.text,
    stdoutBytes: out.bytes,
    stderrBytes: err.bytes,
    stdoutTruncated: out.truncated,
    stderrTruncated: err.truncated,
    timedOut,
    cancelled,
    outputLimitExceeded,
    durationMs: Math.round(performance.now() - started),
  };
}

function collect(stream: ReadableStream<Uint8Array>, cap: number, onBytes: (count: number) => void) {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let bytes = 0;
  const reader = stream.getReader();
  const done = (async () => {
    try {
      for (;;) {
        const { done: finished, value } = await reader.read();
        if (finished) break;
        bytes += value.byteLength;
        onBytes(value.byteLength);
        if (kept < cap) {
          const room = cap - kept;
          const piece = value.byteLength > room ? value.subarray(0, room) : value;
          chunks.push(piece);
          kept += piece.byteLength;
        }
      }
    } catch {
      // cancelled or broken pipe: keep what we have
    }
  })();
  return {
    done,
    stop: () => {
      reader.cancel().catch(() => {});
    },
    result: () => {
      let text = Buffer.concat(chunks).toString("utf8");
      const truncated = bytes > kept;
      if (truncated && text.endsWith("\uFFFD")) text = text.slice(0, -1);
      return { text, bytes, truncated };
    },
  };
}
