/**
 * Real cluster nodes whose agent `guarded` holds its side effects for a person's decision (the `tool-approval`
 * extension on `effects__append`) and suspends on the built-in `timer` tool, for the tests of approvals and timers
 * across nodes (approvals-failover). Its model (the loopback LLM) reads the last user text: `append ID` →
 * `effects__append` of ID (held for a person), `sleep N TAG` → `timer__sleep` of N seconds; after a tool result it
 * reports it. Every request the model gets is kept, so a test counts how often a held call's result was shown (the
 * judge of "once"); the effects file counts how often the held call ran.
 */
import { existsSync, readFileSync } from "node:fs";
import type { Defer } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { lastUserText, toolResults, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { clusterSwarm, type ClusterNodeProcess, type ClusterSwarm } from "./cluster-swarm.ts";
import { TTL_MS, type SeenRequest } from "./timer-cluster.ts";

const GUARDED = `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: guarded }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "ROLE=guarded" }
  tools: [Tool/effects, { kind: Tool, name: timer, package: "@goondan/base" }]
  extensions:
    - ref: { kind: Extension, name: tool-approval, package: "@goondan/base" }
      config: { tools: ["effects__append"] }
`;

export interface ApprovalCluster extends ClusterSwarm {
  seen: SeenRequest[];
  /** The ids the held call appended, in order (once each when every decision was applied once). */
  effects(): string[];
}

function respond(request: LoopbackRequest) {
  if (request.body.messages.at(-1)?.role === "tool") {
    const [result] = toolResults(request).slice(-1);
    return { text: `done: ${JSON.stringify(result?.content)}` };
  }
  const [verb, first] = lastUserText(request).split(" ");
  if (verb === "append") return { toolCalls: [{ name: "effects__append", args: { id: first } }] };
  if (verb === "sleep") return { toolCalls: [{ name: "timer__sleep", args: { delaySeconds: Number(first) } }] };
  return { text: "nothing to do" };
}

/** `ttlMs`: the lease TTL (default TTL_MS, 3 s). */
export async function approvalCluster(defer: Defer, label: string, ttlMs = TTL_MS): Promise<ApprovalCluster> {
  const seen: SeenRequest[] = [];
  const cluster = await clusterSwarm(defer, {
    label,
    ttlMs,
    documents: GUARDED,
    agents: ["guarded"],
    respond: (request) => {
      seen.push({ at: Date.now(), request });
      return respond(request);
    },
  });
  const effects = () =>
    existsSync(cluster.effectsFile)
      ? readFileSync(cluster.effectsFile, "utf8")
          .split("\n")
          .filter((line) => line !== "")
      : [];
  return { ...cluster, seen, effects };
}

export interface ApprovalRow {
  id: string;
  agent: string;
  instanceKey: string;
  node?: string;
  decision?: string;
}

/** GET /v1/approvals on `base`: the rows and the nodes named as not answering. */
export async function listApprovals(
  base: string,
): Promise<{ approvals: ApprovalRow[]; unanswered?: { node: string; status: string }[] }> {
  const response = await fetch(`${base}/v1/approvals`);
  if (response.status !== 200) throw new Error(`GET /v1/approvals: ${response.status} ${await response.text()}`);
  return (await response.json()) as never;
}

/** GET /v1/schedules on `base`: the timers and the nodes named as not answering. */
export async function listTimers(
  base: string,
): Promise<{ timers: { id?: string; eventId: string; instanceKey: string; node?: string }[]; unanswered?: [] }> {
  const response = await fetch(`${base}/v1/schedules`);
  if (response.status !== 200) throw new Error(`GET /v1/schedules: ${response.status} ${await response.text()}`);
  return (await response.json()) as never;
}

/** POST /v1/approvals/:id on `base`: the status and body. */
export async function decideOn(
  base: string,
  id: string,
  decision: "approve" | "deny" = "approve",
): Promise<{ status: number; body: { approval?: ApprovalRow; error?: { code: string } } }> {
  const response = await fetch(`${base}/v1/approvals/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ decision }),
  });
  return { status: response.status, body: (await response.json()) as never };
}

/** POST /v1/events for `guarded`: its event id. */
export async function submitGuarded(base: string, input: string, instanceKey: string): Promise<string> {
  const response = await fetch(`${base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input, agent: "guarded", instanceKey }),
  });
  if (response.status !== 202) throw new Error(`submit: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { eventId: string }).eventId;
}

/** The node that claimed `guarded/<instanceKey>` last, by its log. */
export function guardedOwner(
  nodes: readonly ClusterNodeProcess[],
  instanceKey: string,
): ClusterNodeProcess | undefined {
  let owner: ClusterNodeProcess | undefined;
  let latest = -1;
  for (const node of nodes)
    node.lines.forEach((line, index) => {
      if (line.msg !== "claimed instance" || line.agent !== "guarded" || line.instanceKey !== instanceKey) return;
      const at = typeof line.time === "number" ? line.time : index;
      if (at > latest) (latest = at), (owner = node);
    });
  return owner;
}

/**
 * Submits `append <id>` to `guarded/<instanceKey>` through `via` and waits until its call is held (listed by the
 * owner): the approval's id, the owner and the other node.
 */
export async function heldCall(
  nodes: ClusterNodeProcess[],
  via: ClusterNodeProcess,
  id: string,
  instanceKey: string,
): Promise<{ approvalId: string; eventId: string; owner: ClusterNodeProcess; other: ClusterNodeProcess }> {
  const eventId = await submitGuarded(via.base, `append ${id}`, instanceKey);
  const owner = await until(() => guardedOwner(nodes, instanceKey), { timeoutMs: 60_000, intervalMs: 100 });
  const row = await until(
    async () => (await listApprovals(owner.base)).approvals.find((one) => one.instanceKey === instanceKey),
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  return { approvalId: row.id, eventId, owner, other: nodes.find((node) => node !== owner) as ClusterNodeProcess };
}

/** The requests that showed the model the held call's result for `append <id>`. */
export function resultShown(seen: readonly SeenRequest[], id: string): SeenRequest[] {
  return seen.filter(({ request }) => {
    const messages = request.body.messages;
    if (messages.at(-1)?.role !== "tool") return false;
    const first = messages.find((message) => message.role === "user");
    return typeof first?.content === "string" && first.content === `append ${id}`;
  });
}
