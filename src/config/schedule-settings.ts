/**
 * The built-in `schedule` connector's settings, read from a Connection's `config`: when it fires (`cron`, five or
 * six fields read in `timezone`, or `every`, a duration), the input each tick becomes (a template whose `{{field}}`s
 * name a tick's fields), and what happens to ticks that came due while the daemon was down (`catchUp`, with a cap).
 * One reader for both `goondan validate` (each problem as an issue at its field) and the daemon that runs it.
 */
import { Cron } from "croner";
import type { IssueCode } from "./issue-codes.ts";
import { closestFirst, didYouMean, joinSuggestions } from "./suggest.ts";

/** The built-in Connector whose Connections the daemon runs as schedules. */
export const SCHEDULE_CONNECTOR_NAME = "schedule";
/** The event each tick becomes (what an ingress rule matches). */
export const SCHEDULE_TICK_EVENT = "tick";
/** The fields a template may name: the tick's properties. */
export const SCHEDULE_TEMPLATE_FIELDS = ["connection", "tickAt", "date", "time", "timezone"] as const;
export type ScheduleCatchUp = "none" | "last" | "all";

export interface ScheduleSettings {
  /** Exactly one of `cron` and `everyMs`. */
  cron?: string;
  everyMs?: number;
  /** `every` as written (`15m`). */
  every?: string;
  /** IANA time zone the cron fields and the template's date and time are read in. Default UTC. */
  timezone: string;
  /** Default: `Scheduled tick of {{connection}} at {{tickAt}}`. */
  input: string;
  /** Default `last`. */
  catchUp: ScheduleCatchUp;
  /** With `all`: at most this many missed ticks fire (the newest). Default 10. */
  catchUpMax: number;
}

export interface ScheduleProblem {
  /** The config key it is about. */
  field: string;
  code: IssueCode;
  message: string;
  suggestion?: string | undefined;
}

const KEYS = ["cron", "every", "timezone", "input", "catchUp", "catchUpMax"];
const CATCH_UP: readonly ScheduleCatchUp[] = ["none", "last", "all"];
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Shorter than a second is a busy loop, longer than a year is a typo. */
export const EVERY_MIN_MS = 1000;
export const EVERY_MAX_MS = 366 * 86_400_000;
const CATCH_UP_MAX_LIMIT = 1000;
const DEFAULT_INPUT = "Scheduled tick of {{connection}} at {{tickAt}}";
const FIELD_PATTERN = /\{\{\s*([^{}\s]*)\s*\}\}/g;

/** `90s`, `5m`, `1h30m`, `2d` in milliseconds; undefined when it is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+(ms|s|m|h|d))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)(ms|s|m|h|d)/g))
    total += Number(amount) * UNIT_MS[unit as string]!;
  return total;
}

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The field names a template uses that a tick does not have. */
export function unknownTemplateFields(template: string): string[] {
  const known = new Set<string>(SCHEDULE_TEMPLATE_FIELDS);
  return [...template.matchAll(FIELD_PATTERN)].map((match) => match[1] as string).filter((name) => !known.has(name));
}

/** Fills a template with a tick's fields. */
export function fillTemplate(template: string, fields: Record<string, string>): string {
  return template.replace(FIELD_PATTERN, (_, name: string) => fields[name] ?? "");
}

/** Reads and checks a Connection's config; `settings` is present only when there is no problem. */
export function readScheduleSettings(config: Record<string, unknown>): {
  settings?: ScheduleSettings;
  problems: ScheduleProblem[];
} {
  const problems: ScheduleProblem[] = [];
  for (const key of Object.keys(config))
    if (!KEYS.includes(key))
      problems.push({
        field: key,
        code: "E_CONFIG_SCHEDULE_INVALID",
        message: `expected a schedule setting (${KEYS.join(", ")}), found "${key}"`,
        suggestion: didYouMean(key, KEYS),
      });
  const text = (key: string): string | undefined => {
    const value = config[key];
    if (value === undefined) return undefined;
    if (typeof value === "string") return value;
    problems.push({
      field: key,
      code: "E_CONFIG_SCHEDULE_INVALID",
      message: `expected a string, found ${JSON.stringify(value)}`,
    });
    return undefined;
  };
  const timezone = text("timezone") ?? "UTC";
  if (!isTimeZone(timezone))
    problems.push({
      field: "timezone",
      code: "E_CONFIG_TIMEZONE_UNKNOWN",
      message: `expected an IANA time zone such as Europe/Berlin or UTC, found "${timezone}"`,
      suggestion: didYouMean(timezone, Intl.supportedValuesOf("timeZone")),
    });
  const cron = text("cron");
  const everyValue = config.every;
  if ((cron === undefined) === (everyValue === undefined))
    problems.push({
      field: cron === undefined ? "cron" : "every",
      code: "E_CONFIG_SCHEDULE_INVALID",
      message: `expected exactly one of cron and every, found ${cron === undefined ? "neither" : "both"}`,
      suggestion: 'cron: "0 9 * * 1-5" fires at 9:00 on weekdays; every: 15m fires every quarter of an hour',
    });
  if (cron !== undefined) checkCron(cron, timezone, problems);
  const everyMs = everyValue === undefined ? undefined : readEvery(everyValue, problems);
  const input = text("input") ?? DEFAULT_INPUT;
  for (const name of unknownTemplateFields(input))
    problems.push({
      field: "input",
      code: "E_CONFIG_TEMPLATE_FIELD_UNKNOWN",
      message: `expected {{field}}s a tick has (${SCHEDULE_TEMPLATE_FIELDS.join(", ")}), found {{${name}}}`,
      suggestion: joinSuggestions(didYouMean(name, SCHEDULE_TEMPLATE_FIELDS)),
    });
  const catchUp = text("catchUp") ?? "last";
  if (!CATCH_UP.includes(catchUp as ScheduleCatchUp))
    problems.push({
      field: "catchUp",
      code: "E_CONFIG_SCHEDULE_INVALID",
      message: `expected none, last or all, found "${catchUp}"`,
      suggestion: joinSuggestions(
        didYouMean(catchUp, CATCH_UP),
        `one of: ${closestFirst(catchUp, CATCH_UP).join(", ")}`,
      ),
    });
  const catchUpMax = config.catchUpMax ?? 10;
  if (!Number.isInteger(catchUpMax) || (catchUpMax as number) < 1 || (catchUpMax as number) > CATCH_UP_MAX_LIMIT)
    problems.push({
      field: "catchUpMax",
      code: "E_CONFIG_SCHEDULE_INVALID",
      message: `expected a whole number from 1 to ${CATCH_UP_MAX_LIMIT}, found ${JSON.stringify(catchUpMax)}`,
    });
  if (problems.length > 0) return { problems };
  return {
    problems,
    settings: {
      ...(cron === undefined ? {} : { cron: cron.trim() }),
      ...(everyMs === undefined ? {} : { everyMs, every: String(everyValue).trim() }),
      timezone,
      input,
      catchUp: catchUp as ScheduleCatchUp,
      catchUpMax: catchUpMax as number,
    },
  };
}

function checkCron(cron: string, timezone: string, problems: ScheduleProblem[]): void {
  const fields = cron.trim().split(/\s+/).length;
  let error: string | undefined;
  if (fields !== 5 && fields !== 6) error = `${fields} field${fields === 1 ? "" : "s"}`;
  else
    try {
      new Cron(cron, { paused: true, mode: "5-or-6-parts", ...(isTimeZone(timezone) ? { timezone } : {}) });
    } catch (thrown) {
      error = (thrown as Error).message.replace(/^CronPattern: /, "");
    }
  if (error !== undefined)
    problems.push({
      field: "cron",
      code: "E_CONFIG_CRON_INVALID",
      message: `expected a cron expression of five fields (minute hour day month weekday) or six (seconds first), found "${cron}": ${error}`,
      suggestion: '"0 9 * * 1-5" is 9:00 on weekdays, "*/10 * * * * *" every ten seconds',
    });
}

function readEvery(value: unknown, problems: ScheduleProblem[]): number | undefined {
  const ms = typeof value === "string" ? parseDuration(value) : undefined;
  if (ms !== undefined && ms >= EVERY_MIN_MS && ms <= EVERY_MAX_MS) return ms;
  problems.push({
    field: "every",
    code: "E_CONFIG_DURATION_INVALID",
    message:
      ms === undefined
        ? `expected a duration such as 30s, 15m, 1h30m or 2d, found ${JSON.stringify(value)}`
        : `expected a duration from 1s to 366d, found ${JSON.stringify(value)}`,
    suggestion: typeof value === "number" ? `write the unit: every: ${value}s` : undefined,
  });
  return undefined;
}
