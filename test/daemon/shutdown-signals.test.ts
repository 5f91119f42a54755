/**
 * listenForShutdownSignals: the first SIGTERM/SIGINT starts the graceful shutdown; a second Ctrl+C forces
 * an exit, but the same keypress relayed by a wrapper (bin/goondan under Node, npx) does not.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { listenForShutdownSignals, type ShutdownSignals } from "../../src/daemon/shutdown-signals.ts";
import { ManualClock } from "../helpers/manual-clock.ts";

const listening: ShutdownSignals[] = [];
afterEach(() => {
  for (const signals of listening.splice(0)) signals.dispose();
});

function listen() {
  const clock = new ManualClock();
  const exits: number[] = [];
  const forced: string[] = [];
  const signals = listenForShutdownSignals({
    clock,
    exit: (code) => void exits.push(code),
    onForcedExit: () => void forced.push("forced"),
    duplicateWindowMs: 300,
  });
  listening.push(signals);
  const settled = { signal: undefined as string | undefined };
  void signals.signalled.then((signal) => (settled.signal = signal));
  return { clock, exits, forced, settled };
}

const send = (signal: "SIGINT" | "SIGTERM") => process.emit(signal as never);

describe("listenForShutdownSignals", () => {
  it("resolves with the first signal and does not exit", async () => {
    const { exits, settled } = listen();
    send("SIGTERM");
    await Bun.sleep(0);
    expect(settled.signal).toBe("SIGTERM");
    expect(exits).toEqual([]);
  });

  it("treats a SIGINT relayed within the window as the same Ctrl+C", async () => {
    const { clock, exits, settled } = listen();
    send("SIGINT");
    clock.advance(5);
    send("SIGINT");
    clock.advance(5);
    send("SIGINT");
    await Bun.sleep(0);
    expect(settled.signal).toBe("SIGINT");
    expect(exits).toEqual([]);
  });

  it("exits at once with 130 on a second Ctrl+C pressed after the window", () => {
    const { clock, exits, forced } = listen();
    send("SIGINT");
    clock.advance(300);
    send("SIGINT");
    expect(forced).toEqual(["forced"]);
    expect(exits).toEqual([130]);
  });

  it("exits at once on a SIGINT during a SIGTERM shutdown, and ignores a repeated SIGTERM", () => {
    const { exits } = listen();
    send("SIGTERM");
    send("SIGTERM");
    expect(exits).toEqual([]);
    send("SIGINT");
    expect(exits).toEqual([130]);
  });

  it("stops listening once disposed", () => {
    const before = process.listenerCount("SIGINT");
    const { exits, settled } = listen();
    listening.pop()?.dispose();
    expect(process.listenerCount("SIGINT")).toBe(before);
    send("SIGTERM");
    send("SIGINT");
    expect(exits).toEqual([]);
    expect(settled.signal).toBeUndefined();
  });
});
