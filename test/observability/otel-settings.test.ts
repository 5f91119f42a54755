/**
 * The trace export settings read from the OpenTelemetry variables (otel-settings.ts): off unless an endpoint is
 * set (or when disabled), the traces endpoint used as given and the base one with /v1/traces, http/protobuf by
 * default, headers decoded, and a malformed value refused naming its variable. And OpenTelemetry is never imported
 * statically by src/: only types, so nothing of it loads when tracing is off.
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { traceExportSettings } from "../../src/observability/otel-settings.ts";
import { UsageError } from "../../src/shared/errors.ts";

function refusal(env: Record<string, string>): UsageError {
  try {
    traceExportSettings(env);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error("expected a UsageError");
}

describe("traceExportSettings", () => {
  it("is off without an endpoint, and when the SDK or the traces exporter is disabled", () => {
    expect(traceExportSettings({})).toBeUndefined();
    expect(traceExportSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toBeUndefined();
    expect(
      traceExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_SDK_DISABLED: "true" }),
    ).toBeUndefined();
    expect(
      traceExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_TRACES_EXPORTER: "none" }),
    ).toBeUndefined();
  });

  it("adds /v1/traces to the base endpoint, takes the traces endpoint as given, and defaults to http/protobuf", () => {
    expect(traceExportSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318/" })).toEqual({
      url: "http://127.0.0.1:4318/v1/traces",
      protocol: "http/protobuf",
      headers: {},
      scheduledDelayMillis: 5000,
    });
    expect(
      traceExportSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:1",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://collector.example/otlp/traces",
      })?.url,
    ).toBe("https://collector.example/otlp/traces");
    const settings = traceExportSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:1",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "api-key=a%20b, x-team=ops",
      OTEL_BSP_SCHEDULE_DELAY: "200",
    });
    expect(settings).toMatchObject({
      protocol: "http/json",
      headers: { "api-key": "a b", "x-team": "ops" },
      scheduledDelayMillis: 200,
    });
  });

  it("refuses malformed values, naming the variable", () => {
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: "127.0.0.1:4318" }).message).toContain("OTEL_EXPORTER_OTLP_ENDPOINT");
    expect(refusal({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "grpc://x:4317" }).message).toContain(
      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    );
    const protocol = refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:1", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
    expect(protocol.code).toBe("E_OTEL_CONFIG_INVALID");
    expect(protocol.message).toContain("OTEL_EXPORTER_OTLP_PROTOCOL");
    expect(
      refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:1", OTEL_EXPORTER_OTLP_HEADERS: "novalue" }).message,
    ).toContain("OTEL_EXPORTER_OTLP_HEADERS");
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://a:1", OTEL_BSP_SCHEDULE_DELAY: "soon" }).message).toContain(
      "OTEL_BSP_SCHEDULE_DELAY",
    );
  });
});

describe("OpenTelemetry in src/", () => {
  it("is imported statically only as types; the exporter loads it with import() when tracing is on", () => {
    const src = new URL("../../src", import.meta.url).pathname;
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) =>
        statSync(join(dir, name)).isDirectory()
          ? files(join(dir, name))
          : name.endsWith(".ts")
            ? [join(dir, name)]
            : [],
      );
    const valueImports = files(src).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^import (?!type )[^;]*from "@opentelemetry\/[^"]+"/gm)].map(
        (match) => `${file}: ${match[0]}`,
      ),
    );
    expect(valueImports).toEqual([]);
    const dynamic = readFileSync(join(src, "observability/trace-export.ts"), "utf8");
    expect(dynamic).toContain('import("@opentelemetry/exporter-trace-otlp-proto")');
    expect(readFileSync(join(src, "daemon/daemon.ts"), "utf8")).toContain(
      'await import("../observability/trace-export.ts")',
    );
  });
});
