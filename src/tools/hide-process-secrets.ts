/**
 * Makes the agent process non-dumpable (Linux prctl PR_SET_DUMPABLE 0), so that a command the model runs
 * as the same user cannot read the agent's own environment or memory through /proc/<ppid>/environ and
 * /proc/<ppid>/mem — which is where the model API keys live. Best effort and idempotent: on other systems,
 * or when libc cannot be opened, it does nothing and reports false. Process entries (orchestrator, agent,
 * connector) call it first thing at startup, before any secret is read; the process runner calls it again
 * before spawning a command as a safety net.
 */
const PR_SET_DUMPABLE = 4;
const PR_GET_DUMPABLE = 3;
const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"];

type Prctl = (option: number, arg2: bigint, arg3: bigint, arg4: bigint, arg5: bigint) => number;
let prctl: Prctl | null | undefined;
let hidden = false;

async function loadPrctl(): Promise<Prctl | null> {
  if (prctl !== undefined) return prctl;
  prctl = null;
  if (process.platform !== "linux") return prctl;
  try {
    const { dlopen, FFIType } = await import("bun:ffi");
    for (const name of LIBC_NAMES) {
      try {
        const library = dlopen(name, {
          prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
        });
        prctl = library.symbols.prctl as unknown as Prctl;
        break;
      } catch {
        // try the next name
      }
    }
  } catch {
    // bun:ffi unavailable
  }
  return prctl;
}

/** True once the process is non-dumpable. `platform` (default process.platform) lets tests check the no-op path. */
export async function hideProcessSecrets(options: { platform?: string } = {}): Promise<boolean> {
  if ((options.platform ?? process.platform) !== "linux") return false;
  if (hidden) return true;
  const call = await loadPrctl();
  if (call === null) return false;
  hidden = call(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n) === 0;
  return hidden;
}

/** 1 when dumpable, 0 when not, null when unknown (for tests and `goondan doctor`). */
export async function processDumpable(): Promise<number | null> {
  const call = await loadPrctl();
  return call === null ? null : call(PR_GET_DUMPABLE, 0n, 0n, 0n, 0n);
}
