/**
 * What every bench on the local NATS starts with: a clear exit when no server answers, the cleanups run at the end
 * in reverse order, and the floor its figures are set against — a raw NATS request/reply round trip between this
 * process and a responder child (bench/nats-floor.ts), warmed up before any sample.
 */
import { NATS_URL, natsAvailable } from "../../test/helpers/nats.ts";

const FLOOR_SCRIPT = new URL("../nats-floor.ts", import.meta.url).pathname;

/** Exits with a message naming the server when the local NATS does not answer. */
export function requireNats(): void {
  if (!natsAvailable) {
    console.error(`no NATS server at ${NATS_URL}`);
    process.exit(1);
  }
}

/** `defer` a cleanup; `runCleanups` runs them, the last deferred first. */
export function benchCleanups(): { defer: (cleanup: () => unknown) => void; runCleanups: () => Promise<void> } {
  const cleanups: Array<() => unknown> = [];
  return {
    defer: (cleanup) => void cleanups.push(cleanup),
    runCleanups: async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    },
  };
}

export interface NatsFloor {
  /** Times `iterations` round trips, one after the other (ms each). */
  sample(iterations: number): Promise<number[]>;
  stop(): Promise<void>;
}

/** The floor's responder child and a connection to it, warmed by 100 round trips. */
export async function startNatsFloor(): Promise<NatsFloor> {
  const { connect } = await import("@nats-io/transport-node");
  const subject = `bench.floor.${Math.random().toString(16).slice(2)}`;
  const child = Bun.spawn([process.execPath, FLOOR_SCRIPT, "--responder", subject, "--url", NATS_URL], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  const nc = await connect({ servers: NATS_URL });
  for (let i = 0; i < 100; i++) await nc.request(subject, "warm", { timeout: 5000 }).catch(async () => Bun.sleep(50));
  return {
    sample: async (iterations) => {
      const samples: number[] = [];
      for (let i = 0; i < iterations; i++) {
        const started = performance.now();
        await nc.request(subject, "x", { timeout: 5000 });
        samples.push(performance.now() - started);
      }
      return samples;
    },
    stop: async () => {
      child.kill("SIGKILL");
      await nc.close();
    },
  };
}
