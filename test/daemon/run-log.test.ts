/**
 * Where `goondan run` logs go: a daemon's to stdout; with a chat or `--input` to stderr, or — when stderr is the
 * same terminal and `--verbose` was not given — every record to the run log under the state root and only
 * warnings and errors, one short line each, to the terminal.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/shared/logger.ts";
import { openRunLog, runLogging, runLogPath } from "../../src/daemon/run-log.ts";

const roots: string[] = [];
const stateRoot = () => {
  const dir = mkdtempSync(join(tmpdir(), "goondan-run-log-"));
  roots.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

const record = (level: number, msg: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ level, time: Date.now(), pid: 7, hostname: "h", name: "agent", msg, ...extra });

describe("openRunLog", () => {
  it("writes every record to the file and only warnings and errors, on one line each, to the terminal", () => {
    const root = stateRoot();
    const terminal: string[] = [];
    const log = openRunLog({ stateRoot: root, terminal: (text) => void terminal.push(text), colorize: false });
    log.childLines(record(30, "agent ready"));
    log.childLines(
      record(40, "instance.crashed", { err: { type: "Error", message: "boom", stack: "Error: boom\n    at x" } }),
    );
    log.childLines("a tool's stray console output");
    createLogger("orchestrator", { destination: log.destination, level: "info" }).info(
      { restarts: 0 },
      "instance.ready",
    );
    createLogger("orchestrator", { destination: log.destination, level: "info" }).error("cannot bind");

    const lines = readFileSync(runLogPath(root), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[2]).toBe("a tool's stray console output");
    expect(terminal).toHaveLength(2);
    expect(terminal[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\] WARN \(agent\): instance\.crashed \{"err":\{"type":"Error","message":"boom"\}\}\n$/,
    );
    expect(terminal[1]).toContain("ERROR (orchestrator): cannot bind");
    expect(terminal.join("")).not.toContain("ready");
  });

  it("appends across runs, and starts afresh past its size, keeping the previous file", () => {
    const root = stateRoot();
    mkdirSync(join(root, "logs"));
    writeFileSync(runLogPath(root), "x".repeat(100) + "\n");
    openRunLog({ stateRoot: root, terminal: () => {}, maxBytes: 1000 }).childLines(record(30, "second run"));
    expect(readFileSync(runLogPath(root), "utf8")).toStartWith("x".repeat(100));
    openRunLog({ stateRoot: root, terminal: () => {}, maxBytes: 50 }).childLines(record(30, "third run"));
    expect(readFileSync(runLogPath(root), "utf8")).toContain("third run");
    expect(readFileSync(runLogPath(root), "utf8")).not.toContain("x");
    expect(readFileSync(`${runLogPath(root)}.1`, "utf8")).toContain("second run");
  });
});

describe("runLogging", () => {
  it("logs a daemon to stdout, and a chat to stderr when stderr is no terminal or --verbose is given", () => {
    const root = stateRoot();
    expect(runLogging({ stateRoot: root, chat: false, verbose: false, stderrIsTerminal: true })).toEqual({
      destination: 1,
      childOutput: 1,
    });
    expect(runLogging({ stateRoot: root, chat: true, verbose: false, stderrIsTerminal: false })).toEqual({
      destination: 2,
      childOutput: 2,
    });
    expect(runLogging({ stateRoot: root, chat: true, verbose: true, stderrIsTerminal: true })).toEqual({
      destination: 2,
      childOutput: 2,
    });
    expect(existsSync(runLogPath(root))).toBe(false);
  });

  it("keeps a chat on a terminal for the chat: the run log takes the records", () => {
    const root = stateRoot();
    const terminal: string[] = [];
    const logs = runLogging({
      stateRoot: root,
      chat: true,
      verbose: false,
      stderrIsTerminal: true,
      terminal: (text) => void terminal.push(text),
    });
    expect(logs.runLog?.path).toBe(runLogPath(root));
    expect(typeof logs.childOutput).toBe("function");
    (logs.childOutput as (line: string) => void)(record(30, "agent ready"));
    expect(readFileSync(runLogPath(root), "utf8")).toContain("agent ready");
    expect(terminal).toEqual([]);
  });
});
