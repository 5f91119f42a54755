/**
 * Real cluster nodes whose agent `waiter` suspends its turns on the built-in `timer` tool and sends messages for later
 * with `agents__schedule`, for the failover tests of durable timers and signals (timers-failover and
 * signals-failover). Its model (the loopback LLM) reads the last user text: `sleep N TAG` → `timer__sleep`,
 * `signal NAME T TAG` → `timer__waitForSignal` (T seconds), `later N TAG` → `agents__schedule` of `reminder TAG` to
 * the instance `reminded-TAG` in N seconds, `reminder TAG` → a plain answer; after a tool result it reports it. Every
 * request the model gets is kept, with when it came, so a test counts how often a suspended call's result was shown
 * (the judge of "once") and when.
 */
import type { Defer } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { lastUserText, toolResults, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { clusterSwarm, type ClusterNodeProcess, type ClusterSwarm } from "./cluster-swarm.ts";

export const TTL_MS = 3000;

const WAITER = `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: waiter }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "ROLE=waiter" }
  tools: [{ kind: Tool, name: timer, package: "@goondan/base" }, { kind: Tool, name: agents, package: "@goondan/base" }]
`;

export interface SeenRequest {
  at: number;
  request: LoopbackRequest;
}

export interface TimerCluster extends ClusterSwarm {
  seen: SeenRequest[];
}

function respond(request: LoopbackRequest) {
  if (request.body.messages.at(-1)?.role === "tool") {
    const [result] = toolResults(request).slice(-1);
    return { text: `woke: ${JSON.stringify(result?.content)}` };
  }
  const [verb, first, second, third] = lastUserText(request).split(" ");
  if (verb === "reminder") return { text: `reminded ${first}` };
  if (verb === "later")
    return {
      toolCalls: [
        {
          name: "agents__schedule",
          args: {
            target: "waiter",
            input: `reminder ${second}`,
            delaySeconds: Number(first),
            instanceKey: `reminded-${second}`,
          },
        },
      ],
    };
  if (verb === "sleep") return { toolCalls: [{ name: "timer__sleep", args: { delaySeconds: Number(first) } }] };
  if (verb === "signal")
    return { toolCalls: [{ name: "timer__waitForSignal", args: { name: first, timeoutSeconds: Number(second) } }] };
  return { text: `nothing to do (${third ?? ""})` };
}

/** `ttlMs`: the lease TTL (default TTL_MS, 3 s). */
export async function timerCluster(defer: Defer, label: string, ttlMs = TTL_MS): Promise<TimerCluster> {
  const seen: SeenRequest[] = [];
  const cluster = await clusterSwarm(defer, {
    label,
    ttlMs,
    documents: WAITER,
    agents: ["waiter"],
    respond: (request) => {
      seen.push({ at: Date.now(), request });
      return respond(request);
    },
  });
  return { ...cluster, seen };
}

/** The first user text of a request's conversation (the input that started the suspended turn). */
function firstUserText(request: LoopbackRequest): string {
  const first = request.body.messages.find((message) => message.role === "user");
  return typeof first?.content === "string" ? first.content : JSON.stringify(first?.content ?? "");
}

/** The requests that showed the model a suspended call's result, in the turn started by `input`. */
export function resultsShown(seen: readonly SeenRequest[], input: string): SeenRequest[] {
  return seen.filter(
    ({ request }) => request.body.messages.at(-1)?.role === "tool" && firstUserText(request).includes(input),
  );
}

/** The requests whose last user text is `text` (turns an event started). */
export function turnsStarted(seen: readonly SeenRequest[], text: string): SeenRequest[] {
  return seen.filter(({ request }) => request.body.messages.at(-1)?.role === "user" && lastUserText(request) === text);
}

/** POST /v1/events for the waiter: its event id. */
export async function submit(base: string, input: string, instanceKey: string): Promise<string> {
  const response = await fetch(`${base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input, agent: "waiter", instanceKey }),
  });
  if (response.status !== 202) throw new Error(`submit: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { eventId: string }).eventId;
}

/** The node that claimed the instance `waiter/<instanceKey>` last, by its log. */
export function ownerOf(nodes: readonly ClusterNodeProcess[], instanceKey: string): ClusterNodeProcess | undefined {
  let owner: ClusterNodeProcess | undefined;
  let latest = -1;
  for (const node of nodes) {
    node.lines.forEach((line, index) => {
      if (line.msg !== "claimed instance" || line.agent !== "waiter" || line.instanceKey !== instanceKey) return;
      const at = typeof line.time === "number" ? line.time : index;
      if (at > latest) (latest = at), (owner = node);
    });
  }
  return owner;
}

/** Waits until the instance is claimed by a node, and returns it. */
export function claimedBy(nodes: readonly ClusterNodeProcess[], instanceKey: string): Promise<ClusterNodeProcess> {
  return until(() => ownerOf(nodes, instanceKey), { timeoutMs: 60_000, intervalMs: 100 });
}

/** The event's state as any node reads it, once it is answered (ok or error). */
export function answered(
  base: string,
  eventId: string,
  timeoutMs = 90_000,
): Promise<{ state: string; response?: string }> {
  return until(
    async () => {
      const response = await fetch(`${base}/v1/events/${eventId}`).catch(() => undefined);
      if (response?.status !== 200) return undefined;
      const state = (await response.json()) as { state: string; response?: string };
      return state.state === "ok" || state.state === "error" ? state : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}

/** POST /v1/signals/:name on `base`: the status and body. */
export async function signal(
  base: string,
  name: string,
  payload: unknown,
): Promise<{ status: number; body: { delivered?: { eventId: string }[]; error?: { code: string } } }> {
  const response = await fetch(`${base}/v1/signals/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ payload }),
  });
  return { status: response.status, body: (await response.json()) as never };
}

/** The pending timers `GET /v1/schedules` on `base` lists (suspended calls and messages for later). */
export async function timers(
  base: string,
): Promise<{ id: string; instanceKey: string; until?: string; signal?: string }[]> {
  const response = await fetch(`${base}/v1/schedules`).catch(() => undefined);
  if (response?.status !== 200) return [];
  return ((await response.json()) as { timers: [] }).timers;
}

/** Waits until the node lists a pending timer of `waiter/<instanceKey>` (its suspension is durable), and returns it. */
export function pendingTimer(
  base: string,
  instanceKey: string,
): Promise<{ id: string; instanceKey: string; until?: string; signal?: string }> {
  return until(async () => (await timers(base)).find((timer) => timer.instanceKey === instanceKey), {
    timeoutMs: 60_000,
    intervalMs: 100,
  });
}

/** SIGKILLs the node and waits for it to be gone. */
export async function kill(node: ClusterNodeProcess): Promise<number> {
  node.proc.kill("SIGKILL");
  await node.proc.exited;
  return Date.now();
}
