/**
 * The pino logger factory. Services log JSON lines to stdout (or another destination); when the destination
 * is a terminal, pino-pretty renders each record as one short coloured line for a person (time, level, name,
 * message, the remaining fields), and debug stays below the default `info` level. Secret-looking fields are
 * redacted everywhere, in both forms.
 */
import { createRequire } from "node:module";
import { isatty } from "node:tty";
import pino, { type DestinationStream, type Logger } from "pino";

// Loaded on first use: pino-pretty costs ~70 ms to import, which no process logging JSON should pay.
const loadPinoPretty = (): typeof import("pino-pretty") =>
  createRequire(import.meta.url)("pino-pretty") as typeof import("pino-pretty");

export type { Logger } from "pino";

export const REDACT_PATHS = [
  "apiKey",
  "*.apiKey",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
  "token",
  "*.token",
  "secret",
  "*.secret",
  "password",
  "*.password",
];

export interface CreateLoggerOptions {
  /** Bound fields for every line (e.g. `{agent, instanceKey}`). */
  bindings?: Record<string, unknown>;
  /** Minimum level. Default: `GOONDAN_LOG_LEVEL` or `info`. */
  level?: string;
  /** Where lines go: a file descriptor or a stream. Default: stdout (fd 1). */
  destination?: DestinationStream | number;
  /** Render lines for people (pino-pretty). Default: true when the destination is a file descriptor on a terminal. */
  pretty?: boolean;
}

/** Whether a file descriptor is a terminal (false for a closed or invalid one). */
export function isTerminal(fd: number): boolean {
  try {
    return isatty(fd);
  } catch {
    return false;
  }
}

export interface PrettyOptions {
  /** Default: true unless NO_COLOR is set or FORCE_COLOR is 0. */
  colorize?: boolean;
  /** Always one line: errors without their stack. Default false (an error's stack follows on its own lines). */
  short?: boolean;
}

/**
 * Renders JSON log lines as people read them: `[12:00:01] INFO (orchestrator): ready {"port":8790}`.
 * A line that is not JSON passes through unchanged.
 */
export function prettyLine(options: PrettyOptions = {}): (line: string) => string {
  const colorize = options.colorize ?? (process.env.NO_COLOR === undefined && process.env.FORCE_COLOR !== "0");
  const short = options.short === true ? { errorLikeObjectKeys: [], ignore: "pid,hostname,err.stack,error.stack" } : {};
  const render = loadPinoPretty().prettyFactory({
    colorize,
    translateTime: "SYS:HH:MM:ss",
    ignore: "pid,hostname",
    singleLine: true,
    ...short,
  });
  return (line) => {
    const text = render(line);
    return text.endsWith("\n") ? text : `${text}\n`;
  };
}

/** A destination that writes each JSON record pretty-printed through `write`. */
export function prettyDestination(write: (text: string) => void, options: PrettyOptions = {}): DestinationStream {
  const render = prettyLine(options);
  return {
    write(chunk: string) {
      for (const line of chunk.split("\n")) if (line !== "") write(render(line));
    },
  };
}

export function createLogger(name: string, options: CreateLoggerOptions = {}): Logger {
  const level = options.level ?? process.env.GOONDAN_LOG_LEVEL ?? "info";
  const target = options.destination ?? 1;
  const pretty = options.pretty ?? (typeof target === "number" && isTerminal(target));
  const raw: DestinationStream = typeof target === "number" ? pino.destination({ dest: target, sync: true }) : target;
  const destination = pretty ? prettyDestination((text) => void raw.write(text)) : raw;
  return pino(
    {
      name,
      level,
      base: { pid: process.pid, ...options.bindings },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    },
    destination,
  );
}

/** A logger that drops everything (tests, benches). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
