/**
 * The Swarm's runtime-event retention (`spec.policy.retention.runtimeEvents`: `maxAge`, `maxRows`), applied off the
 * hot path: a pass runs `firstDelayMs` after start and every `intervalMs` after that, and deletes what is past the
 * policy a batch of `batchRows` at a time (one short transaction each), giving the event loop back between batches
 * so turns and requests go on while it runs. The policy is read at each pass, so a reload applies at the next one.
 * No policy, no pass. Stopping waits for a running pass to end its batch.
 */
import type { RuntimeEventRetention as RetentionPolicy } from "../config/types.ts";
import type { Clock, TimerHandle } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { Store } from "../store/store.ts";

/** Defaults: first pass a minute after start, then every 10 minutes, 1,000 rows per batch. */
export const RETENTION_FIRST_DELAY_MS = 60_000;
export const RETENTION_INTERVAL_MS = 600_000;
export const RETENTION_BATCH_ROWS = 1000;

export interface RuntimeEventRetentionOptions {
  store: Pick<Store, "pruneRuntimeEvents">;
  /** The swarm's key in the store (its instanceKey), read at each pass. */
  swarm: () => string;
  /** The policy now (absent: keep everything). */
  policy: () => RetentionPolicy | undefined;
  clock: Clock;
  logger: Logger;
  firstDelayMs?: number;
  intervalMs?: number;
  batchRows?: number;
}

export class RuntimeEventRetention {
  private timer: TimerHandle | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly options: RuntimeEventRetentionOptions) {}

  start(): void {
    this.schedule(this.options.firstDelayMs ?? RETENTION_FIRST_DELAY_MS);
  }

  /** One whole pass now; resolves with the rows deleted (0 without a policy). */
  pass(): Promise<number> {
    this.running ??= this.prune().finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      void this.pass()
        .catch((error: unknown) =>
          this.options.logger.warn(
            { error: error instanceof Error ? error.message : String(error) },
            "could not prune old runtime events; trying again at the next pass",
          ),
        )
        .finally(() => this.schedule(this.options.intervalMs ?? RETENTION_INTERVAL_MS));
    }, ms);
  }

  private async prune(): Promise<number> {
    const policy = this.options.policy();
    if (policy?.maxAgeMs === undefined && policy?.maxRows === undefined) return 0;
    const limit = this.options.batchRows ?? RETENTION_BATCH_ROWS;
    const pruning = {
      ...(policy.maxAgeMs === undefined ? {} : { before: this.options.clock.now() - policy.maxAgeMs }),
      ...(policy.maxRows === undefined ? {} : { keepRows: policy.maxRows }),
      limit,
    };
    let total = 0;
    for (;;) {
      const deleted = await this.options.store.pruneRuntimeEvents(this.options.swarm(), pruning);
      total += deleted;
      if (deleted < limit || this.stopped) break;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    if (total > 0) this.options.logger.info({ deleted: total, ...policy }, "pruned old runtime events");
    return total;
  }
}
