/**
 * The OTLP/HTTP trace export of a running swarm, built only when the environment asks for it (otel-settings.ts):
 * OpenTelemetry's packages are imported here, dynamically, on start. The orchestrator's runtime-event hub already
 * receives every runtime event of every agent child over IPC, with the trace context each child gave it, so the
 * spans are made there (runtime-event-spans.ts) rather than in each child: one exporter, no collector credentials
 * in the children's environment, and each span still names the process it ran in through its own resource
 * (`service.name=goondan`, `goondan.process.role=agent`, the agent, the instance key, the node). Spans are batched
 * (BatchSpanProcessor) and a failing collector is logged, never felt by the agents.
 */
import { hostname } from "node:os";
import packageJson from "../../package.json" with { type: "json" };
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { Logger } from "../shared/logger.ts";
import type { TraceExportSettings } from "./otel-settings.ts";
import { spanOfRuntimeEvent } from "./runtime-event-spans.ts";

export interface TraceExport {
  /** Turns a batch of runtime events into spans and queues them (RuntimeEventHub subscriber). */
  observe(events: readonly RuntimeEvent[]): void;
  /** Sends what is queued. */
  flush(): Promise<void>;
  /** Sends what is queued (waiting at most 5 s) and stops. */
  shutdown(): Promise<void>;
}

/** How often a failing collector is logged at most. */
const WARN_EVERY_MS = 60_000;
/** The longest stopping waits for the last spans to leave (a collector that never answers must not hold a shutdown). */
const SHUTDOWN_WAIT_MS = 5_000;

export async function startTraceExport(options: {
  settings: TraceExportSettings;
  swarm: string;
  logger: Logger;
  node?: string;
}): Promise<TraceExport> {
  const { settings, logger } = options;
  const [{ resourceFromAttributes }, { BatchSpanProcessor }, exporters] = await Promise.all([
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace"),
    settings.protocol === "http/json"
      ? import("@opentelemetry/exporter-trace-otlp-http")
      : import("@opentelemetry/exporter-trace-otlp-proto"),
  ]);
  const inner: SpanExporter = new exporters.OTLPTraceExporter({ url: settings.url, headers: settings.headers });
  let warnedAt = -Infinity;
  const exporter: SpanExporter = {
    export: (spans: ReadableSpan[], done) =>
      inner.export(spans, (result) => {
        if (result.code !== 0 && Date.now() - warnedAt > WARN_EVERY_MS) {
          warnedAt = Date.now();
          logger.warn(
            { url: settings.url, spans: spans.length, error: result.error?.message?.slice(0, 300) },
            "trace export failed; spans dropped",
          );
        }
        done(result);
      }),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
  const processor = new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.scheduledDelayMillis });
  const node = options.node ?? hostname();
  const resources = new Map<string, Resource>();
  const resourceOf = (agent: string, instanceKey: string): Resource => {
    const key = `${agent}\u0000${instanceKey}`;
    let resource = resources.get(key);
    if (resource === undefined) {
      resource = resourceFromAttributes({
        "service.name": "goondan",
        "service.version": packageJson.version,
        "service.namespace": options.swarm,
        "host.name": node,
        "goondan.swarm": options.swarm,
        "goondan.node": node,
        "goondan.process.role": "agent",
        "goondan.agent": agent,
        "goondan.instance_key": instanceKey,
      });
      // Instances come and go; the cache only saves rebuilding a resource per batch.
      if (resources.size >= 10_000) resources.clear();
      resources.set(key, resource);
    }
    return resource;
  };
  logger.info({ url: settings.url, protocol: settings.protocol }, "exporting traces over OTLP");
  return {
    observe(events) {
      for (const event of events) {
        const span = spanOfRuntimeEvent(event, resourceOf(event.agent, event.instanceKey));
        if (span) processor.onEnd(span);
      }
    },
    flush: () => processor.forceFlush(),
    shutdown: async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
      await Promise.race([processor.shutdown().catch(() => undefined), late]);
      clearTimeout(timer);
    },
  };
}
