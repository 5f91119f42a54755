/**
 * A connector's sandbox decision (src/connector/host/connector-sandbox.ts): where the machine allows namespaces the
 * spec gets a launcher (unshare … setpriv, network namespace unless `network: host`); where it does not,
 * `required` keeps the connector from starting with E_CONNECTOR_ISOLATION_UNAVAILABLE logged, `auto` starts it
 * as is with one warning per process, and `none` never asks. The launcher itself is proven under a real `goondan
 * run` in test/connector/connector-sandbox.integration.test.ts.
 */
import { describe, expect, it } from "bun:test";
import { resetConnectorIsolationWarning, sandboxedConnector } from "../../../src/connector/host/connector-sandbox.ts";
import type { ConnectorRunSpec } from "../../../src/connector/host/connector-run-spec.ts";
import { silentLogger, type Logger } from "../../../src/shared/logger.ts";

function spec(sandbox: ConnectorRunSpec["sandbox"]): ConnectorRunSpec {
  return {
    connection: "c",
    connector: "x",
    entry: "/x.ts",
    config: {},
    secrets: {},
    rules: [],
    entryAgent: "a",
    swarmInstanceKey: "s",
    stdin: "ignore",
    ...(sandbox === undefined ? {} : { sandbox }),
  };
}

function recording(calls: { level: string; args: unknown[] }[]): Logger {
  const logger = silentLogger();
  return Object.assign(Object.create(logger) as Logger, {
    warn: (...args: unknown[]) => void calls.push({ level: "warn", args }),
    error: (...args: unknown[]) => void calls.push({ level: "error", args }),
    child: () => recording(calls),
  });
}

const unavailable = "/nonexistent";

describe("a connector's sandbox", () => {
  it.skipIf(process.platform !== "linux")(
    "gets a launcher with its own network namespace unless network: host",
    async () => {
      const closed = await sandboxedConnector({
        spec: spec({ network: "none", isolation: "auto" }),
        logger: silentLogger(),
      });
      expect(closed?.launcher).toContain("--net");
      expect(closed?.launcher).toContain("--no-new-privs");
      const open = await sandboxedConnector({
        spec: spec({ network: "host", isolation: "auto" }),
        logger: silentLogger(),
      });
      expect(open?.launcher).toBeDefined();
      expect(open?.launcher).not.toContain("--net");
    },
  );

  it("required: does not start where no namespace can be had, and logs E_CONNECTOR_ISOLATION_UNAVAILABLE", async () => {
    const calls: { level: string; args: unknown[] }[] = [];
    const result = await sandboxedConnector({
      spec: spec({ network: "none", isolation: "required" }),
      logger: recording(calls),
      helperPath: unavailable,
    });
    expect(result).toBeUndefined();
    expect(calls[0]?.level).toBe("error");
    expect(calls[0]?.args[0]).toMatchObject({ code: "E_CONNECTOR_ISOLATION_UNAVAILABLE" });
  });

  it("auto: starts as is, with one warning per process naming what the connector can then reach", async () => {
    resetConnectorIsolationWarning();
    const calls: { level: string; args: unknown[] }[] = [];
    for (let round = 0; round < 2; round += 1) {
      const result = await sandboxedConnector({
        spec: spec({ network: "none", isolation: "auto" }),
        logger: recording(calls),
        helperPath: unavailable,
      });
      expect(result?.launcher).toBeUndefined();
    }
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(calls[0]?.args)).toContain("goondan.db");
  });

  it("none, or no sandbox in the spec: starts as is without asking the machine", async () => {
    for (const settings of [{ network: "none" as const, isolation: "none" as const }, undefined]) {
      const result = await sandboxedConnector({
        spec: spec(settings),
        logger: silentLogger(),
        helperPath: unavailable,
      });
      expect(result?.launcher).toBeUndefined();
    }
  });
});
