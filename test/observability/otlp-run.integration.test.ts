/**
 * OpenTelemetry export from a real `goondan run` (coordinator and worker children on the loopback LLM) to a loopback
 * OTLP receiver, over http/protobuf and http/json: one delegated request is one trace across both agent processes,
 * every span's parent is the span that caused it (coordinator turn → step → model call and `agents__request` tool
 * call → the worker's turn → its step → its model call), each span's resource names its process, and model calls
 * carry the GenAI attributes with token usage.
 */
import { describe, expect, it } from "bun:test";
import { lastRole, roleOf } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { serveRealSwarm } from "../http/run-fixture.ts";
import { startOtlpReceiver, type ReceivedSpan } from "./otlp-receiver.ts";

const defer = useCleanups();

const delegate = { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "count the pages" } }] };

for (const protocol of ["http/protobuf", "http/json"] as const) {
  describe(`OTLP export over ${protocol}`, () => {
    it("sends one trace over both agent processes with correct parent links and gen_ai attributes", async () => {
      const receiver = startOtlpReceiver();
      defer(() => receiver.close());
      const run = await serveRealSwarm({
        defer,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
          OTEL_BSP_SCHEDULE_DELAY: "50",
          OTEL_EXPORTER_OTLP_HEADERS: "x-test=yes",
        },
        llm: {
          respond: (request) => {
            if (roleOf(request) === "worker")
              return { text: "3 pages", usage: { promptTokens: 7, completionTokens: 3 } };
            return lastRole(request) === "tool" ? { text: "the worker counted 3 pages" } : delegate;
          },
        },
      });
      const reply = await fetch(`${run.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "how many pages?", wait: true }),
      });
      expect(reply.status).toBe(200);
      const spans = await until(
        () => {
          const turns = receiver.spans.filter((span) => span.attributes["gen_ai.operation.name"] === "invoke_agent");
          return turns.length >= 2 && receiver.spans.length >= 9 ? receiver.spans : undefined;
        },
        { timeoutMs: 15_000 },
      );
      expect(receiver.contentTypes[0]).toContain(
        protocol === "http/json" ? "application/json" : "application/x-protobuf",
      );

      const one = (predicate: (span: ReceivedSpan) => boolean, what: string): ReceivedSpan => {
        const found = spans.filter(predicate);
        if (found.length !== 1)
          throw new Error(
            `expected one ${what}, got ${found.length}: ${JSON.stringify(spans.map((span) => [span.name, span.resource["goondan.agent"]]))}`,
          );
        return found[0] as ReceivedSpan;
      };
      const of = (agent: string) => (span: ReceivedSpan) => span.resource["goondan.agent"] === agent;
      const coordinatorTurn = one(
        (span) => of("coordinator")(span) && span.name === "invoke_agent coordinator",
        "coordinator turn",
      );
      const firstStep = one((span) => of("coordinator")(span) && span.name === "step 0", "coordinator step 0");
      const secondStep = one((span) => of("coordinator")(span) && span.name === "step 1", "coordinator step 1");
      const request = one((span) => span.name === "execute_tool agents__request", "agent request");
      const workerTurn = one((span) => of("worker")(span) && span.name === "invoke_agent worker", "worker turn");
      const workerStep = one((span) => of("worker")(span) && span.name === "step 0", "worker step");
      const workerModel = one(
        (span) => of("worker")(span) && span.attributes["gen_ai.operation.name"] === "chat",
        "worker model call",
      );
      const coordinatorModels = spans.filter(
        (span) => of("coordinator")(span) && span.attributes["gen_ai.operation.name"] === "chat",
      );

      // One trace across both processes.
      expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([coordinatorTurn.traceId]));
      expect(coordinatorTurn.traceId).toMatch(/^[0-9a-f]{32}$/);
      // Parent links, across the process boundary too.
      expect(firstStep.parentSpanId).toBe(coordinatorTurn.spanId);
      expect(secondStep.parentSpanId).toBe(coordinatorTurn.spanId);
      expect(request.parentSpanId).toBe(firstStep.spanId);
      expect(request.attributes["goondan.agent_request"]).toBe(true);
      expect(coordinatorModels.map((span) => span.parentSpanId).sort()).toEqual(
        [firstStep.spanId, secondStep.spanId].sort(),
      );
      expect(workerTurn.parentSpanId).toBe(request.spanId);
      expect(workerStep.parentSpanId).toBe(workerTurn.spanId);
      expect(workerModel.parentSpanId).toBe(workerStep.spanId);
      // The worker's turn runs inside the request that asked for it.
      expect(workerTurn.startNs >= request.startNs && workerTurn.endNs <= request.endNs).toBe(true);
      // Each process is named in its resource.
      // A copy: the spans of one process share their resource object, and a matcher must not see it twice.
      for (const span of spans)
        expect({ ...span.resource }).toMatchObject({
          "service.name": "goondan",
          "goondan.process.role": "agent",
          "goondan.instance_key": expect.any(String),
          "goondan.node": expect.any(String),
        });
      expect(workerTurn.resource["goondan.agent"]).toBe("worker");
      // GenAI semantic conventions on the model call, with usage.
      expect(workerModel.kind).toBe(3); // OTLP SPAN_KIND_CLIENT
      expect(workerModel.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": expect.any(String),
        "gen_ai.system": expect.any(String),
        "gen_ai.request.model": expect.any(String),
        "gen_ai.usage.input_tokens": 7,
        "gen_ai.usage.output_tokens": 3,
      });
      expect(workerTurn.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "worker",
        "gen_ai.usage.input_tokens": 7,
      });
      expect(request.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "agents__request",
      });
      expect(spans.every((span) => span.status === 1 && span.endNs >= span.startNs)).toBe(true);
    }, 60_000);
  });
}
