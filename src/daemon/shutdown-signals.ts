/**
 * Turns SIGTERM/SIGINT into one graceful shutdown: the first signal resolves `signalled` (the caller then
 * drains and exits 0); a second SIGINT while draining exits at once with 130. `dispose` removes the
 * handlers so a finished process is not kept alive by them.
 *
 * One Ctrl+C can arrive more than once: the terminal signals its whole foreground process group, so a
 * wrapper in that group that relays signals (`bin/goondan` under Node, `npx`, `npm exec`) delivers the same
 * keypress again a moment later. SIGINTs within `duplicateWindowMs` of the first count as that one press.
 */
import { systemClock, type Clock } from "../shared/clock.ts";

export interface ShutdownSignals {
  /** Resolves with the first signal's name. */
  signalled: Promise<"SIGTERM" | "SIGINT">;
  dispose(): void;
}

/** Long enough for a relay of the same keypress, shorter than a person pressing Ctrl+C again. */
export const DUPLICATE_SIGINT_WINDOW_MS = 300;

export function listenForShutdownSignals(
  options: {
    onForcedExit?: () => void;
    exit?: (code: number) => void;
    clock?: Pick<Clock, "now">;
    duplicateWindowMs?: number;
  } = {},
): ShutdownSignals {
  const clock = options.clock ?? systemClock;
  const window = options.duplicateWindowMs ?? DUPLICATE_SIGINT_WINDOW_MS;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let first: { signal: "SIGTERM" | "SIGINT"; at: number } | undefined;
  let resolveSignal: (signal: "SIGTERM" | "SIGINT") => void = () => {};
  const signalled = new Promise<"SIGTERM" | "SIGINT">((resolve) => (resolveSignal = resolve));
  const onSignal = (signal: "SIGTERM" | "SIGINT") => () => {
    if (first === undefined) {
      first = { signal, at: clock.now() };
      resolveSignal(signal);
      return;
    }
    if (signal !== "SIGINT") return;
    if (first.signal === "SIGINT" && clock.now() - first.at < window) return; // the same keypress, relayed
    options.onForcedExit?.();
    exit(130);
  };
  const onTerm = onSignal("SIGTERM");
  const onInt = onSignal("SIGINT");
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  return {
    signalled,
    dispose() {
      process.off("SIGTERM", onTerm);
      process.off("SIGINT", onInt);
    },
  };
}
