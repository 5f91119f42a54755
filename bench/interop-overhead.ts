/**
 * What each interoperability surface adds to a request over `POST /v1/events` (`"wait": true`): the same HTTP API
 * handler, in process, on a backend whose turn ends at once (it reports a `turn.completed` with usage, then
 * settles the outcome), so the difference is the surface's own mapping: its request check, the event it builds,
 * the usage it collects and the answer it writes. Requests alternate between the floor and each surface; prints
 * p50 and p99 per route and the p50 difference with the spread of its slices (goal: p50 under 1 ms). The typed
 * client's `send` runs over the same handler (its fetch calls it in process): what the client adds to the floor.
 * Usage: `bun bench/interop-overhead.ts [--iterations N]` (default 5000).
 */
import { createClient } from "../src/client/index.ts";
import type { ApiBackend } from "../src/http/api-backend.ts";
import { createApiHandler } from "../src/http/http-api.ts";
import type { OrchestratorApi } from "../src/orchestrator/orchestrator-api.ts";
import type { SubmitOptions, Submitted } from "../src/orchestrator/orchestrator-options.ts";
import type { RuntimeEventListener } from "../src/orchestrator/routing/runtime-event-hub.ts";
import type { RuntimeEvent } from "../src/protocol/runtime-event.ts";
import { flag } from "./support/flag.ts";
import { p50Difference } from "./support/p50-difference.ts";
import { percentile } from "./support/percentile.ts";

const iterations = Number(flag("iterations", "5000"));
const listeners = new Set<RuntimeEventListener>();
let count = 0;

function submit(options: SubmitOptions): Submitted {
  count += 1;
  const eventId = `evt_${count}`;
  const agent = options.agent ?? "coordinator";
  const instanceKey = options.instanceKey ?? "bench";
  const ended: RuntimeEvent = {
    type: "turn.completed",
    at: new Date().toISOString(),
    agent,
    instanceKey,
    traceId: `trace_${count}`,
    spanId: "span",
    turnId: `turn_${count}`,
    eventId,
    usage: { inputTokens: 10, outputTokens: 5 },
  };
  const outcome = Promise.resolve().then(() => {
    for (const listener of listeners) listener([{ cursor: count, event: ended }], async () => true);
    return {
      status: "ok" as const,
      agent,
      instanceKey,
      eventId,
      turnId: `turn_${count}`,
      response: "a reply of a few words",
      finishReason: "stop",
    };
  });
  return { eventId, agent, instanceKey, accepted: Promise.resolve(), outcome };
}

const unused = () => {
  throw new Error("not used by the bench");
};
const orchestrator: OrchestratorApi = {
  swarm: {
    name: "bench",
    instanceKey: "bench",
    entryAgent: "coordinator",
    agents: new Map([["coordinator", { name: "coordinator" }]]),
    policy: { requestTimeoutMs: 60_000 } as OrchestratorApi["swarm"]["policy"],
    bundleDir: "/nonexistent",
  } as OrchestratorApi["swarm"],
  submit,
  instances: unused,
  messages: unused,
  runtimeEvents: async () => [],
  eventState: unused,
  acceptedEvents: async () => [],
  onRuntimeEvents: (listener) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  approvals: { pending: unused, decide: unused, suspended: unused, signal: unused },
  scheduled: unused,
};
const backend: ApiBackend = { orchestrator, processes: unused };
const handle = createApiHandler({ backend });

const post = (path: string, body: unknown) =>
  new Request(`http://127.0.0.1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify(body),
  });

const routes: Record<string, () => Request> = {
  "POST /v1/events (wait)": () => post("/v1/events", { input: "hello", wait: true }),
  "POST /v1/chat/completions": () =>
    post("/v1/chat/completions", { model: "bench", messages: [{ role: "user", content: "hello" }] }),
  "POST /v1/chat/completions (stream)": () =>
    post("/v1/chat/completions", { model: "bench", messages: [{ role: "user", content: "hello" }], stream: true }),
  "POST /v1/a2a SendMessage": () =>
    post("/v1/a2a", {
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: `m${count}`, role: "ROLE_USER", parts: [{ text: "hello" }] } },
    }),
  "POST /v1/ag-ui": () =>
    post("/v1/ag-ui", { threadId: "bench", runId: "run", messages: [{ id: "m", role: "user", content: "hello" }] }),
};

const client = createClient({
  baseUrl: "http://127.0.0.1",
  fetch: async (url, init) => handle(new Request(url, init)),
});
const calls: Record<string, () => Promise<void>> = {
  ...Object.fromEntries(
    Object.entries(routes).map(([name, make]) => [
      name,
      async () => {
        const response = await handle(make());
        await response.text();
        if (response.status !== 200) throw new Error(`answered ${response.status}`);
      },
    ]),
  ),
  "typed client send (wait)": async () => {
    const outcome = await client.send({ input: "hello" });
    if (outcome.status !== "ok") throw new Error(`answered ${outcome.status}`);
  },
};

async function timeOne(call: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

const samples = Object.fromEntries(Object.keys(calls).map((name) => [name, [] as number[]]));
for (let round = 0; round < 200; round += 1) for (const call of Object.values(calls)) await timeOne(call);
for (let round = 0; round < iterations; round += 1)
  for (const [name, call] of Object.entries(calls)) samples[name]?.push(await timeOne(call));

const ms = (value: number) => `${value.toFixed(3)} ms`;
const floor = samples["POST /v1/events (wait)"] as number[];
console.log(`interop overhead over POST /v1/events (wait), ${iterations} requests per route, in process`);
for (const [name, series] of Object.entries(samples)) {
  const line = `${name.padEnd(36)} p50 ${ms(percentile(series, 50))}  p99 ${ms(percentile(series, 99))}`;
  if (series === floor) {
    console.log(`${line}  (floor)`);
    continue;
  }
  const difference = p50Difference(series, floor, 10);
  console.log(
    `${line}  adds p50 ${ms(difference.all)} (slices ${ms(difference.low)} … ${ms(difference.high)}); goal < 1 ms: ${difference.all < 1 ? "met" : "NOT met"}`,
  );
}
