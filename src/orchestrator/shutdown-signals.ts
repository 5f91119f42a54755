/**
 * Turns SIGTERM/SIGINT into one graceful shutdown: the first signal resolves `signalled` (the caller then
 * drains and exits 0); a second SIGINT while draining exits at once with 130. `dispose` removes the
 * handlers so a finished process is not kept alive by them.
 */
export interface ShutdownSignals {
  /** Resolves with the first signal's name. */
  signalled: Promise<"SIGTERM" | "SIGINT">;
  dispose(): void;
}

export function listenForShutdownSignals(options: { onForcedExit?: () => void } = {}): ShutdownSignals {
  let first: "SIGTERM" | "SIGINT" | undefined;
  let resolveSignal: (signal: "SIGTERM" | "SIGINT") => void = () => {};
  const signalled = new Promise<"SIGTERM" | "SIGINT">((resolve) => (resolveSignal = resolve));
  const onSignal = (signal: "SIGTERM" | "SIGINT") => () => {
    if (first === undefined) {
      first = signal;
      resolveSignal(signal);
      return;
    }
    if (signal === "SIGINT") {
      options.onForcedExit?.();
      process.exit(130);
    }
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
