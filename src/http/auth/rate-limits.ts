/**
 * The HTTP API's rate limits (docs/limits.md): a token bucket per credential and one per client address, each
 * `requests` per `seconds` (bursts up to `requests`). Over either, a request gets `429 E_API_RATE_LIMITED` with
 * `Retry-After`. Set in the environment of `goondan run`: `GOONDAN_API_RATE_LIMIT_CREDENTIAL` (default `1200/60`),
 * `GOONDAN_API_RATE_LIMIT_ADDRESS` (default `600/60`), each `N/SECONDS` or `off`; and
 * `GOONDAN_API_RATE_LIMIT_LOOPBACK=on` to count loopback clients too. Loopback clients are not counted by default:
 * a program on the machine itself can exhaust it in many other ways, and tests, benches and operator commands
 * talk to the API from there in bursts; the limits guard the API where it faces a network.
 */
import { UsageError } from "../../shared/errors.ts";

export interface Rate {
  requests: number;
  seconds: number;
}

export interface RateLimitSettings {
  perCredential?: Rate;
  perAddress?: Rate;
  /** Count loopback clients too. Default false. */
  loopback: boolean;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  perCredential: { requests: 1200, seconds: 60 },
  perAddress: { requests: 600, seconds: 60 },
  loopback: false,
};

function rate(variable: string, value: string | undefined, fallback: Rate | undefined): Rate | undefined {
  const text = value?.trim();
  if (text === undefined || text === "") return fallback;
  if (text === "off" || text === "0") return undefined;
  const match = /^(\d{1,9})\s*\/\s*(\d{1,7})s?$/.exec(text);
  const requests = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (!match || requests < 1 || seconds < 1)
    throw new UsageError(
      "E_API_RATE_LIMIT_INVALID",
      `${variable}: expected N/SECONDS (e.g. 600/60) or off, got ${JSON.stringify(text)}`,
      {
        suggestion: `fix or unset ${variable}; see docs/limits.md`,
      },
    );
  return { requests, seconds };
}

export function rateLimitsFromEnv(env: Record<string, string | undefined>): RateLimitSettings {
  const loopback = env.GOONDAN_API_RATE_LIMIT_LOOPBACK?.trim() ?? "";
  if (!["", "on", "off"].includes(loopback))
    throw new UsageError(
      "E_API_RATE_LIMIT_INVALID",
      `GOONDAN_API_RATE_LIMIT_LOOPBACK: expected on or off, got ${JSON.stringify(loopback)}`,
    );
  const perCredential = rate(
    "GOONDAN_API_RATE_LIMIT_CREDENTIAL",
    env.GOONDAN_API_RATE_LIMIT_CREDENTIAL,
    DEFAULT_RATE_LIMITS.perCredential,
  );
  const perAddress = rate(
    "GOONDAN_API_RATE_LIMIT_ADDRESS",
    env.GOONDAN_API_RATE_LIMIT_ADDRESS,
    DEFAULT_RATE_LIMITS.perAddress,
  );
  return {
    ...(perCredential ? { perCredential } : {}),
    ...(perAddress ? { perAddress } : {}),
    loopback: loopback === "on",
  };
}

/** Token buckets by key, bounded in number (the longest idle is dropped first: it is also the fullest). */
export class RateBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly rate: Rate,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 10_000,
  ) {}

  /** Takes one request: 0 when allowed, else the seconds until one will be. */
  take(key: string): number {
    const perMs = this.rate.requests / (this.rate.seconds * 1000);
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.rate.requests, at: now };
    this.buckets.delete(key);
    bucket.tokens = Math.min(this.rate.requests, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }
}
