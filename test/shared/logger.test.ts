/**
 * The logger: JSON lines by default, one pino-pretty line per record for people (`pretty`), secrets redacted in
 * both forms, and a terminal told apart from a file.
 */
import { describe, expect, it } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, isTerminal, prettyLine } from "../../src/shared/logger.ts";

const collect = () => {
  const lines: string[] = [];
  return { lines, destination: { write: (text: string) => void lines.push(text) } };
};

describe("createLogger", () => {
  it("writes one JSON record per line by default, with the name, the bindings and the message", () => {
    const { lines, destination } = collect();
    createLogger("orchestrator", { destination, level: "info", bindings: { swarm: "s" } }).info(
      { port: 8790 },
      "ready",
    );
    const record = JSON.parse(lines.join("")) as Record<string, unknown>;
    expect(record).toMatchObject({ name: "orchestrator", swarm: "s", port: 8790, msg: "ready", level: 30 });
  });

  it("with pretty, writes one short line: time, level, name, message and the remaining fields, without pid or host", () => {
    const { lines, destination } = collect();
    createLogger("orchestrator", { destination, level: "info", pretty: true }).info(
      { agent: "worker", restarts: 0 },
      "instance.ready",
    );
    expect(lines).toHaveLength(1);
    const plain = (lines[0] ?? "").replace(/\u001b\[\d+m/g, "");
    expect(plain).toMatch(
      /^\[\d\d:\d\d:\d\d\] INFO \(orchestrator\): instance\.ready \{"agent":"worker","restarts":0\}\n$/,
    );
    expect(plain).not.toContain("pid");
  });

  it("redacts secret fields in JSON and pretty lines alike", () => {
    for (const pretty of [false, true]) {
      const { lines, destination } = collect();
      createLogger("t", { destination, level: "info", pretty }).info(
        { apiKey: "sk-live", headers: { authorization: "Bearer x" } },
        "call",
      );
      expect(lines.join("")).not.toContain("sk-live");
      expect(lines.join("")).not.toContain("Bearer x");
      expect(lines.join("")).toContain("[redacted]");
    }
  });

  it("drops debug at the default level", () => {
    const { lines, destination } = collect();
    const logger = createLogger("t", { destination, pretty: true, level: undefined });
    if (process.env.GOONDAN_LOG_LEVEL === undefined) {
      logger.debug("noise");
      expect(lines).toEqual([]);
    }
    logger.warn("kept");
    expect(lines.join("")).toContain("kept");
  });
});

describe("prettyLine", () => {
  it("colours the level unless told not to, and passes a line that is not JSON through", () => {
    const record = JSON.stringify({ level: 40, time: Date.now(), name: "agent", msg: "slow" });
    expect(prettyLine({ colorize: true })(record)).toContain("\u001b[");
    expect(prettyLine({ colorize: false })(record)).not.toContain("\u001b[");
    expect(prettyLine({ colorize: false })("Bun crashed")).toBe("Bun crashed\n");
  });
});

describe("isTerminal", () => {
  it("is false for a file and for a closed descriptor", () => {
    const dir = mkdtempSync(join(tmpdir(), "goondan-logger-"));
    const fd = openSync(join(dir, "log"), "w");
    expect(isTerminal(fd)).toBe(false);
    closeSync(fd);
    expect(isTerminal(fd)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });
});
