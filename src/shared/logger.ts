/**
 * The pino logger factory. Services log JSON lines to stdout (or another destination); when the
 * destination is a TTY, lines are rendered as a short human line instead, and debug noise is dropped.
 * Secret-looking fields are redacted everywhere.
 */
import pino, { type Logger, type DestinationStream } from "pino";

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
  /** Where lines go. Default: stdout (fd 1). */
  destination?: DestinationStream | number;
  /** Render pretty lines. Default: true when the destination is fd 1 and stdout is a TTY. */
  pretty?: boolean;
}

const LEVEL_NAMES: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** A tiny pretty printer: `12:00:01 info  orchestrator ready port=8790`. */
export function prettyStream(write: (line: string) => void): DestinationStream {
  return {
    write(chunk: string) {
      for (const raw of chunk.split("\n")) {
        if (!raw) continue;
        try {
          const record = JSON.parse(raw) as Record<string, unknown>;
          const { level, time, msg, pid: _pid, hostname: _host, name, ...rest } = record;
          const clock = new Date(typeof time === "number" ? time : Date.now()).toISOString().slice(11, 19);
          const levelName = (LEVEL_NAMES[level as number] ?? String(level)).padEnd(5);
          const fields = Object.entries(rest)
            .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
            .join(" ");
          write(`${clock} ${levelName} ${name ? `${String(name)} ` : ""}${String(msg ?? "")}${fields ? ` ${fields}` : ""}\n`);
        } catch {
          write(`${raw}\n`);
        }
      }
    },
  };
}

export function createLogger(name: string, options: CreateLoggerOptions = {}): Logger {
  const level = options.level ?? process.env.GOONDAN_LOG_LEVEL ?? "info";
  const destinationOption = options.destination ?? 1;
  const pretty = options.pretty ?? (destinationOption === 1 && process.stdout.isTTY === true);
  let destination: DestinationStream;
  if (pretty) {
    destination = prettyStream((line) => process.stdout.write(line));
  } else if (typeof destinationOption === "number") {
    destination = pino.destination({ dest: destinationOption, sync: true });
  } else {
    destination = destinationOption;
  }
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
