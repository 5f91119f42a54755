/**
 * The due times of one schedule, as epoch milliseconds: `every` ticks fall on whole multiples of the interval since
 * the epoch, so the same times (and the same tick ids) come back after any restart; `cron` ticks are croner's, read
 * in the schedule's time zone. Pure: no clock, no timers.
 */
import { Cron } from "croner";
import type { ScheduleSettings } from "../../config/schedule-settings.ts";

export interface TickTimes {
  /** The first due time strictly after `afterMs`; undefined when the expression never fires again. */
  next(afterMs: number): number | undefined;
  /**
   * The due times in (`afterMs`, `untilMs`]: the newest `keep` of them, oldest first, and how many there are in all
   * (counted up to `COUNT_LIMIT`, past which `total` says at least that many).
   */
  between(afterMs: number, untilMs: number, keep: number): { newest: number[]; total: number };
}

export const COUNT_LIMIT = 10_000;

export function tickTimes(settings: Pick<ScheduleSettings, "cron" | "everyMs" | "timezone">): TickTimes {
  if (settings.everyMs !== undefined) return everyTimes(settings.everyMs);
  const cron = new Cron(settings.cron ?? "", { paused: true, mode: "5-or-6-parts", timezone: settings.timezone });
  const next = (afterMs: number): number | undefined => cron.nextRun(new Date(afterMs))?.getTime();
  return {
    next,
    between(afterMs, untilMs, keep) {
      const newest: number[] = [];
      let total = 0;
      for (let at = next(afterMs); at !== undefined && at <= untilMs && total < COUNT_LIMIT; at = next(at)) {
        total += 1;
        newest.push(at);
        if (newest.length > keep) newest.shift();
      }
      return { newest, total };
    },
  };
}

function everyTimes(everyMs: number): TickTimes {
  const next = (afterMs: number): number => (Math.floor(afterMs / everyMs) + 1) * everyMs;
  return {
    next,
    between(afterMs, untilMs, keep) {
      const first = Math.floor(afterMs / everyMs) + 1;
      const last = Math.floor(untilMs / everyMs);
      const total = Math.max(0, last - first + 1);
      const newest: number[] = [];
      for (let index = Math.max(first, last - keep + 1); index <= last; index++) newest.push(index * everyMs);
      return { newest, total };
    },
  };
}
