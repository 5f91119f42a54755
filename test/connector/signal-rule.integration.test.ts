/**
 * A connector event as a signal, with real processes: `goondan run` with a webhook Connection whose first ingress
 * rule says `signal: deploy-finished` for `kind: deploy` bodies, an agent whose model waits for that signal through
 * `timer__waitForSignal`, and the loopback LLM. The webhook body resumes the suspended turn with the event as the
 * tool's result (shown to the model exactly once); the same body again finds nobody waiting: 404
 * E_SIGNAL_NOT_FOUND, nothing kept; a body the signal rule does not match is routed to the agent as usual.
 */
import { describe, expect, it } from "bun:test";
import { createServer } from "node:net";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { lastUserText, startLoopbackLlm, toolResults, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { loopbackBundle, runLoopbackBundle } from "../daemon/loopback-bundle.ts";

const defer = useCleanups();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** "wait NAME" → timer__waitForSignal; after the tool's result, it reports it; anything else is echoed. */
function respond(request: LoopbackRequest) {
  if (request.body.messages.at(-1)?.role === "tool") {
    const [result] = toolResults(request).slice(-1);
    return { text: `woke: ${JSON.stringify(result?.content)}` };
  }
  const [verb, name] = lastUserText(request).split(" ");
  if (verb === "wait") return { toolCalls: [{ name: "timer__waitForSignal", args: { name, timeoutSeconds: 600 } }] };
  return { text: `heard: ${lastUserText(request)}` };
}

function bundle(llmUrl: string, port: number): string {
  return loopbackBundle({
    defer,
    llmUrl,
    documents: `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: releaser }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "wait for the deploy" }
  tools: [{ kind: Tool, name: timer, package: "@goondan/base" }]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: hooks }
spec: { entryAgent: Agent/releaser, agents: [Agent/releaser], policy: { shutdown: { gracePeriodSeconds: 2 } } }
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: ci }
spec:
  connectorRef: { kind: Connector, name: webhook, package: "@goondan/base" }
  swarmRef: Swarm/hooks
  config: { port: { value: "${port}" }, host: 127.0.0.1, path: /ci }
  ingress:
    rules:
      - match: { event: webhook_message, properties: { kind: deploy } }
        signal: deploy-finished
      - route: { agentRef: Agent/releaser, instanceKey: chatter }
`,
  });
}

async function hook(port: number, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}/ci`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function eventState(base: string, eventId: string): Promise<{ state: string; response?: string }> {
  return (await (await fetch(`${base}/v1/events/${eventId}`)).json()) as { state: string; response?: string };
}

describe("an ingress rule with signal", () => {
  it("resumes the turn waiting for the signal with the webhook's event, once; nobody waiting is a 404", async () => {
    const llm = await startLoopbackLlm({ respond });
    defer(() => llm.close());
    const port = await freePort();
    const daemon = await runLoopbackBundle({ defer, dir: bundle(llm.url, port) });

    const submitted = await fetch(`${daemon.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "wait deploy-finished", instanceKey: "release" }),
    });
    expect(submitted.status).toBe(202);
    const waiting = ((await submitted.json()) as { eventId: string }).eventId;
    await until(
      async () => {
        const listed = (await (await fetch(`${daemon.base}/v1/schedules`)).json()) as { timers: { signal?: string }[] };
        return listed.timers.some((timer) => timer.signal === "deploy-finished");
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

    // The webhook's body is the signal: the waiting turn goes on with it as the tool's result.
    const sent = await until(
      async () => {
        const answer = await hook(port, { kind: "deploy", version: "1.2.0", input: "deployed 1.2.0" }).catch(
          () => undefined,
        );
        return answer?.status === 503 ? undefined : answer; // the connector child may still be starting
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({ accepted: true, eventId: waiting });
    const outcome = await until(
      async () => {
        const state = await eventState(daemon.base, waiting);
        return state.state === "ok" || state.state === "error" ? state : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(outcome.state).toBe("ok");
    expect(outcome.response).toContain("deploy-finished");
    expect(outcome.response).toContain("1.2.0");
    const shown = llm.requests.filter((request) => request.body.messages.at(-1)?.role === "tool");
    expect(shown.length).toBe(1);

    // Delivered once: the same body again reaches nobody, and says so.
    const again = await hook(port, { kind: "deploy", version: "1.2.0" });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("E_SIGNAL_NOT_FOUND");

    // A body the signal rule does not match is routed to the agent as before.
    const other = await hook(port, { kind: "chat", input: "hello" });
    expect(other.status).toBe(202);
    await until(
      async () => (await eventState(daemon.base, other.body.eventId)).response?.includes("heard: hello") === true,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }, 180_000);
});
