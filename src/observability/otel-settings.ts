/**
 * Whether, and where, goondan exports traces, read from the standard OpenTelemetry variables of its environment:
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the whole URL) or `OTEL_EXPORTER_OTLP_ENDPOINT` (a base, `/v1/traces` is
 * added), `OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL` (`http/protobuf`, the default, or `http/json`) and
 * `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS` (`key=value,…`, values URL-encoded) and `OTEL_BSP_SCHEDULE_DELAY`. Neither endpoint set, or
 * `OTEL_SDK_DISABLED=true`, or `OTEL_TRACES_EXPORTER=none`: no tracing, and nothing of OpenTelemetry is loaded.
 * A malformed value is a UsageError naming the variable.
 */
import type { Env } from "../config/value-source.ts";
import { UsageError } from "../shared/errors.ts";

export type OtlpProtocol = "http/protobuf" | "http/json";

export interface TraceExportSettings {
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  /** `OTEL_BSP_SCHEDULE_DELAY`: the longest a finished span waits before it is sent. Default 5000 ms. */
  scheduledDelayMillis: number;
}

function invalid(variable: string, message: string): UsageError {
  return new UsageError("E_OTEL_CONFIG_INVALID", `${variable}: ${message}`, {
    suggestion: `fix or unset ${variable}; see docs/observability.md#opentelemetry`,
  });
}

function httpUrl(variable: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(
      variable,
      `expected an http(s) URL like http://127.0.0.1:4318, got ${JSON.stringify(value.slice(0, 200))}`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw invalid(
      variable,
      `expected an http(s) URL (OTLP/HTTP; gRPC is not supported), got ${JSON.stringify(value.slice(0, 200))}`,
    );
  return url;
}

function headersOf(variable: string, value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of (value ?? "").split(",")) {
    if (entry.trim() === "") continue;
    const equals = entry.indexOf("=");
    if (equals <= 0)
      throw invalid(variable, `expected key=value pairs separated by commas, got an entry without a key or '='`);
    try {
      headers[decodeURIComponent(entry.slice(0, equals).trim())] = decodeURIComponent(entry.slice(equals + 1).trim());
    } catch {
      throw invalid(variable, "a key or value is not valid URL encoding");
    }
  }
  return headers;
}

/** The trace export the environment asks for, or undefined when it asks for none. */
export function traceExportSettings(env: Env): TraceExportSettings | undefined {
  const set = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  if (set("OTEL_SDK_DISABLED")?.toLowerCase() === "true" || set("OTEL_TRACES_EXPORTER")?.toLowerCase() === "none")
    return undefined;
  const tracesEndpoint = set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const endpoint = set("OTEL_EXPORTER_OTLP_ENDPOINT");
  let url: string;
  if (tracesEndpoint !== undefined) url = httpUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", tracesEndpoint).href;
  else if (endpoint !== undefined)
    url = `${httpUrl("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint).href.replace(/\/$/, "")}/v1/traces`;
  else return undefined;
  const protocolVariable =
    set("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") !== undefined
      ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
      : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = set(protocolVariable) ?? "http/protobuf";
  if (protocol !== "http/protobuf" && protocol !== "http/json")
    throw invalid(
      protocolVariable,
      `expected http/protobuf or http/json (gRPC is not supported), got ${JSON.stringify(protocol.slice(0, 100))}`,
    );
  const headersVariable =
    set("OTEL_EXPORTER_OTLP_TRACES_HEADERS") !== undefined
      ? "OTEL_EXPORTER_OTLP_TRACES_HEADERS"
      : "OTEL_EXPORTER_OTLP_HEADERS";
  const delay = set("OTEL_BSP_SCHEDULE_DELAY") ?? "5000";
  if (!/^\d{1,7}$/.test(delay))
    throw invalid(
      "OTEL_BSP_SCHEDULE_DELAY",
      `expected a whole number of milliseconds, got ${JSON.stringify(delay.slice(0, 100))}`,
    );
  return {
    url,
    protocol,
    headers: headersOf(headersVariable, set(headersVariable)),
    scheduledDelayMillis: Number(delay),
  };
}
