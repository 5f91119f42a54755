/**
 * A budget's period (`30m`, `1h`, `1d`, `30d`) in milliseconds, and the fixed window it falls in: windows are
 * aligned to the Unix epoch, so `1d` windows start at 00:00 UTC and every process, and every restart, agrees on them.
 */
import { ConfigError } from "../../shared/errors.ts";

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

export function periodMs(period: string, where: string): number {
  const match = /^([1-9][0-9]*)([mhd])$/.exec(period);
  if (match === null)
    throw new ConfigError("E_CONFIG_BUDGET_PERIOD", `${where}: expected a period like 30m, 1h, 1d, got ${period}`);
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** Epoch ms at which the window holding `now` starts. */
export const windowStart = (now: number, period: number): number => Math.floor(now / period) * period;
