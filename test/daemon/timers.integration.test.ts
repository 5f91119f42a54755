/**
 * Durable timers and signals with real processes: an agent whose model calls the built-in `timer` tool, a real
 * `goondan run` and the loopback LLM. A `timer__sleep` survives a SIGKILL of the agent's process and of the
 * orchestrator, comes due while nothing runs, and wakes the turn once on the next start; a `timer__waitForSignal`
 * is resumed by `POST /v1/signals/:name` with the payload as its result, and times out with E_SIGNAL_TIMEOUT; a
 * signal for nobody is a 404. The judge is what the model was shown: each suspended call's result exactly once.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { loopbackBundle, runLoopbackBundle } from "./loopback-bundle.ts";
import { isAlive, until } from "../helpers/goondan-process.ts";
import { lastUserText, startLoopbackLlm, toolResults, type LoopbackRequest } from "../helpers/loopback-llm.ts";

const defer = useCleanups();
const TEST_TIMEOUT_MS = 120_000;

/** The model: "sleep N" → timer__sleep, "signal NAME T" → timer__waitForSignal; after a tool result, it reports it. */
function respond(request: LoopbackRequest) {
  const messages = request.body.messages;
  if (messages.at(-1)?.role === "tool") {
    const [result] = toolResults(request).slice(-1);
    return { text: `woke: ${JSON.stringify(result?.content)}` };
  }
  const [verb, first, second] = lastUserText(request).split(" ");
  if (verb === "reminder") return { text: "reminded" };
  if (verb === "later")
    return {
      toolCalls: [
        {
          name: "agents__schedule",
          args: { target: "waiter", input: "reminder", delaySeconds: Number(first), instanceKey: "reminded" },
        },
      ],
    };
  if (verb === "sleep") return { toolCalls: [{ name: "timer__sleep", args: { delaySeconds: Number(first) } }] };
  return {
    toolCalls: [{ name: "timer__waitForSignal", args: { name: first, timeoutSeconds: Number(second) } }],
  };
}

function bundle(llmUrl: string): string {
  return loopbackBundle({
    defer,
    llmUrl,
    documents: `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: waiter }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "you wait" }
  tools: [{ kind: Tool, name: timer, package: "@goondan/base" }, { kind: Tool, name: agents, package: "@goondan/base" }]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: timers }
spec: { entryAgent: Agent/waiter, agents: [Agent/waiter], policy: { shutdown: { gracePeriodSeconds: 2 } } }
`,
  });
}

function startDaemon(dir: string) {
  return runLoopbackBundle({ defer, dir });
}

async function submit(base: string, input: string, instanceKey: string): Promise<string> {
  const response = await fetch(`${base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input, instanceKey }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { eventId: string }).eventId;
}

async function timers(base: string): Promise<{ id: string; until?: string; signal?: string; agent: string }[]> {
  return ((await (await fetch(`${base}/v1/schedules`)).json()) as { timers: [] }).timers;
}

async function answered(base: string, eventId: string): Promise<{ state: string; response?: string }> {
  return until(
    async () => {
      const state = (await (await fetch(`${base}/v1/events/${eventId}`)).json()) as {
        state: string;
        response?: string;
      };
      return state.state === "ok" || state.state === "error" ? state : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200 },
  );
}

/** How many turns the scheduled message started (the model asked about it). */
function reminders(requests: readonly LoopbackRequest[]): number {
  return requests.filter((request) => lastUserText(request) === "reminder").length;
}

/** How many times the model was shown a result for the call that suspended. */
function resultsShown(requests: readonly LoopbackRequest[]): number {
  return requests.filter((request) => request.body.messages.at(-1)?.role === "tool").length;
}

describe("durable timers and signals", () => {
  it(
    "a timer survives a SIGKILL of its agent and of the orchestrator, comes due while down and wakes once",
    async () => {
      const llm = await startLoopbackLlm({ respond });
      defer(() => llm.close());
      const dir = bundle(llm.url);
      let daemon = await startDaemon(dir);
      const eventId = await submit(daemon.base, "sleep 4", "nap");
      const [timer] = await until(async () => {
        const listed = await timers(daemon.base);
        return listed.length === 1 ? listed : undefined;
      });
      expect(timer).toMatchObject({ agent: "waiter" });
      // The agent's process dies while its turn is suspended, then the orchestrator, past the timer's time.
      const processes = (await (await fetch(`${daemon.base}/v1/processes`)).json()) as {
        processes: { kind: string; pid: number | null }[];
      };
      for (const row of processes.processes) if (row.kind === "agent" && row.pid) process.kill(row.pid, "SIGKILL");
      daemon.proc.kill("SIGKILL");
      await daemon.proc.exited;
      await until(() => Date.parse(timer?.until ?? "") + 1000 < Date.now(), { timeoutMs: 10_000 });
      expect(resultsShown(llm.requests)).toBe(0);
      daemon = await startDaemon(dir);
      const outcome = await answered(daemon.base, eventId);
      expect(outcome.state).toBe("ok");
      expect(outcome.response).toContain("wokeAt");
      expect(await timers(daemon.base)).toEqual([]);
      daemon.proc.kill("SIGTERM");
      expect(await daemon.proc.exited).toBe(0);
      const shown = resultsShown(llm.requests);
      console.log(`timer across a child crash and kill -9: woken ${shown} time(s), lost ${shown === 0 ? 1 : 0}`);
      expect(shown).toBe(1);
      expect(isAlive(daemon.proc.pid)).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a message sent for later with agents__schedule waits through a kill -9 across its time and arrives once",
    async () => {
      const llm = await startLoopbackLlm({ respond });
      defer(() => llm.close());
      const dir = bundle(llm.url);
      let daemon = await startDaemon(dir);
      const sender = await submit(daemon.base, "later 4", "planner");
      expect((await answered(daemon.base, sender)).state).toBe("ok");
      const scheduledAt = Date.now();
      expect(reminders(llm.requests)).toBe(0);
      expect(await timers(daemon.base)).toEqual([
        expect.objectContaining({ toolName: "agents__schedule", agent: "waiter", instanceKey: "reminded" }),
      ]);
      daemon.proc.kill("SIGKILL");
      await daemon.proc.exited;
      await until(() => Date.now() > scheduledAt + 5000, { timeoutMs: 10_000 });
      daemon = await startDaemon(dir);
      await until(() => reminders(llm.requests) > 0, { timeoutMs: 60_000 });
      const instances = (await (await fetch(`${daemon.base}/v1/instances`)).json()) as {
        instances: { agent: string; instanceKey: string }[];
      };
      expect(instances.instances.some((row) => row.instanceKey === "reminded")).toBe(true);
      daemon.proc.kill("SIGTERM");
      expect(await daemon.proc.exited).toBe(0);
      const delivered = reminders(llm.requests);
      console.log(`agents__schedule across kill -9: delivered ${delivered} time(s)`);
      expect(delivered).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a signal resumes a suspended turn with its payload; one for nobody is a 404; a wait times out",
    async () => {
      const llm = await startLoopbackLlm({ respond });
      defer(() => llm.close());
      const dir = bundle(llm.url);
      const daemon = await startDaemon(dir);
      const waiting = await submit(daemon.base, "signal deploy 600", "deploys");
      await until(async () => (await timers(daemon.base)).some((timer) => timer.signal === "deploy"));
      const nobody = await fetch(`${daemon.base}/v1/signals/elsewhere`, { method: "POST" });
      expect(nobody.status).toBe(404);
      expect(((await nobody.json()) as { error: { code: string } }).error.code).toBe("E_SIGNAL_NOT_FOUND");
      const sent = await fetch(`${daemon.base}/v1/signals/deploy`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ payload: { version: "1.2.0" } }),
      });
      expect(sent.status).toBe(202);
      expect(((await sent.json()) as { delivered: { eventId: string }[] }).delivered).toEqual([
        expect.objectContaining({ eventId: waiting }),
      ]);
      const outcome = await answered(daemon.base, waiting);
      expect(outcome.response).toContain('"version":"1.2.0"');
      // Delivered once: the same signal again finds nobody.
      expect((await fetch(`${daemon.base}/v1/signals/deploy`, { method: "POST" })).status).toBe(404);

      const timingOut = await submit(daemon.base, "signal never 1", "deploys-2");
      const late = await answered(daemon.base, timingOut);
      expect(late.response).toContain("E_SIGNAL_TIMEOUT");
      daemon.proc.kill("SIGTERM");
      expect(await daemon.proc.exited).toBe(0);
      expect(resultsShown(llm.requests)).toBe(2);
    },
    TEST_TIMEOUT_MS,
  );
});
