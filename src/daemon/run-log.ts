/**
 * Where `goondan run`'s logs go. A daemon logs to stdout (JSON, or pretty on a terminal) and so do its children.
 * When the terminal is a person's chat or answer (a cli Connection, `--input`) and stderr is that same terminal,
 * the orchestrator's and the children's records (`agent host ready`, `shared agent process spawned`, the logging
 * extension's turns) go to the run log under the state root instead, and only warnings and errors reach the
 * terminal, one short line each; `--verbose` keeps everything on stderr. The run log starts afresh once it
 * passes `maxBytes` (the previous one is kept as `goondan.log.1`).
 */
import { mkdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import pino, { type DestinationStream } from "pino";
import type { ChildLineSink, ChildOutput } from "../supervision/child-output.ts";
import { isTerminal, prettyLine } from "../shared/logger.ts";

export const RUN_LOG_MAX_BYTES = 10 * 1024 * 1024;

/** pino's number for `warn`: records at or above it reach the terminal. */
const WARN_LEVEL = 40;

export interface RunLog {
  /** The file every record goes to. */
  path: string;
  /** Destination of the orchestrator's own logger. */
  destination: DestinationStream;
  /** Where children's lines go. */
  childLines: ChildLineSink;
}

/** `<stateRoot>/logs/goondan.log`. */
export function runLogPath(stateRoot: string): string {
  return join(stateRoot, "logs", "goondan.log");
}

export function openRunLog(options: {
  stateRoot: string;
  terminal: (text: string) => void;
  colorize?: boolean;
  maxBytes?: number;
}): RunLog {
  const path = runLogPath(options.stateRoot);
  mkdirSync(join(options.stateRoot, "logs"), { recursive: true });
  if (sizeOf(path) > (options.maxBytes ?? RUN_LOG_MAX_BYTES)) renameSync(path, `${path}.1`);
  const file = pino.destination({ dest: path, append: true, sync: true });
  const short = prettyLine({ short: true, ...(options.colorize === undefined ? {} : { colorize: options.colorize }) });
  const route = (line: string): void => {
    if (line === "") return;
    file.write(`${line}\n`);
    if (levelOf(line) >= WARN_LEVEL) options.terminal(short(line));
  };
  return {
    path,
    destination: { write: (chunk: string) => chunk.split("\n").forEach(route) },
    childLines: route,
  };
}

export interface RunLogging {
  /** The orchestrator logger's destination. */
  destination: DestinationStream | number;
  /** Where children's output goes. */
  childOutput: ChildOutput;
  /** The run log, when the terminal is kept for the chat. */
  runLog?: RunLog;
}

/**
 * Decides where a run's logs go: stdout for a daemon; stderr when stdout holds the reply (`--input`) or the chat
 * (a cli Connection); the run log when, on top of that, stderr is the terminal too and `--verbose` was not given.
 */
export function runLogging(options: {
  stateRoot: string;
  chat: boolean;
  verbose: boolean;
  stderrIsTerminal?: boolean;
  terminal?: (text: string) => void;
}): RunLogging {
  if (!options.chat) return { destination: 1, childOutput: 1 };
  if (options.verbose || !(options.stderrIsTerminal ?? isTerminal(2))) return { destination: 2, childOutput: 2 };
  const runLog = openRunLog({
    stateRoot: options.stateRoot,
    terminal: options.terminal ?? ((text) => void process.stderr.write(text)),
  });
  return { destination: runLog.destination, childOutput: runLog.childLines, runLog };
}

function levelOf(line: string): number {
  if (!line.startsWith("{")) return 0;
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    return typeof level === "number" ? level : 0;
  } catch {
    return 0;
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
