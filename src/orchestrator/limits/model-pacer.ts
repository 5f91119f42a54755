/**
 * Provider pacing of one Model, shared by every process of it (docs/limits.md#provider-pacing): permits are granted
 * one at a time, at least `60000 / requestsPerMinute` ms apart, and none while the tokens reported in the last 60 s
 * reach `tokensPerMinute`. A 429 reported by any process pauses every permit of the Model until its Retry-After has
 * passed, and the calls held meanwhile leave spread by a random jitter, so a storm of 429s is answered by the whole
 * Model waiting once, not by each process retrying on its own.
 */
import type { ModelRateLimit } from "../../config/types.ts";
import type { Clock } from "../../shared/clock.ts";

const MINUTE_MS = 60_000;
/** The most jitter added to a call held by a 429 pause. */
export const MAX_PAUSE_JITTER_MS = 1_000;

export interface ModelPacerOptions {
  rateLimit: ModelRateLimit;
  clock: Clock;
  /** Default Math.random. */
  random?: () => number;
}

export class ModelPacer {
  private nextAt = 0;
  private pausedUntil = 0;
  /** The last pause's length: for as long again after it ends, grants are spread by a random gap. */
  private pauseMs = 0;
  private readonly tokens: { at: number; tokens: number }[] = [];
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ModelPacerOptions) {}

  /** Resolves, with the ms waited, when a call may go. Calls are granted in the order they asked. */
  acquire(): Promise<number> {
    const askedAt = this.options.clock.now();
    const granted = this.tail.then(() => this.waitTurn()).then(() => this.options.clock.now() - askedAt);
    this.tail = granted.catch(() => undefined);
    return granted;
  }

  /** A call of this Model spent these tokens (counted against `tokensPerMinute`). */
  spent(tokens: number): void {
    if (tokens > 0) this.tokens.push({ at: this.options.clock.now(), tokens });
  }

  /** A process of this Model was answered 429: no permit before `retryAfterMs` from now. */
  throttled(retryAfterMs: number): void {
    const until = this.options.clock.now() + retryAfterMs;
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.pauseMs = retryAfterMs;
  }

  private async waitTurn(): Promise<void> {
    const { clock } = this.options;
    const random = this.options.random ?? Math.random;
    for (;;) {
      const now = clock.now();
      const paused = this.pausedUntil > now;
      const until = Math.max(this.nextAt, this.pausedUntil, this.tokensFreeAt(now));
      if (until <= now) break;
      const jitter = paused ? Math.floor(random() * Math.min(MAX_PAUSE_JITTER_MS, this.pausedUntil - now)) : 0;
      await new Promise<void>((resolve) => clock.setTimeout(resolve, until - now + jitter));
    }
    const rpm = this.options.rateLimit.requestsPerMinute;
    const now = clock.now();
    const spacing = rpm === undefined ? 0 : MINUTE_MS / rpm;
    // Just after a pause, the calls it held leave one by one with random gaps instead of all at once.
    const spread =
      now < this.pausedUntil + this.pauseMs ? random() * Math.min(MAX_PAUSE_JITTER_MS, this.pauseMs) * 0.25 : 0;
    this.nextAt = now + Math.max(spacing, spread);
  }

  /** When the tokens of the last minute fall below `tokensPerMinute` (now when they are below). */
  private tokensFreeAt(now: number): number {
    const limit = this.options.rateLimit.tokensPerMinute;
    while (this.tokens.length > 0 && (this.tokens[0] as { at: number }).at <= now - MINUTE_MS) this.tokens.shift();
    if (limit === undefined) return now;
    let total = this.tokens.reduce((sum, entry) => sum + entry.tokens, 0);
    if (total < limit) return now;
    // Below the limit once enough of the oldest entries have left the minute.
    for (const entry of this.tokens) {
      total -= entry.tokens;
      if (total < limit) return entry.at + MINUTE_MS;
    }
    return now;
  }
}
