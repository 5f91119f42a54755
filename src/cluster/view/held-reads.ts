/**
 * The held calls of the cluster read from any node: the approvals waiting for a person (`GET /v1/approvals`), the
 * calls suspended by the `timer` tool and the messages for later (the `timers` of `GET /v1/schedules`), and one
 * approval by id (for a decision made on a node that does not run its instance, cluster-decisions.ts).
 *
 * A node's store keeps a copy of every instance it ran, also once another node took it over (that copy is stale:
 * its calls may have been decided since), and none of an instance it never ran. So each node answers for the
 * instances it runs only (`ownHeld`), and the reads merge every node's answer, each call once, with its node
 * (`mergeHeld`). For one approval by id every copy is asked for: the running node's copy is the authority, else a
 * copy that says it was decided (a decision is final), else any (`bestCopy`).
 */
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { Approval } from "../../protocol/approval.ts";

/** What a node reads from its own orchestrator (the ApprovalDesk and the messages for later in its store). */
export interface HeldHost {
  readonly approvals: {
    pending(): Promise<Approval[]>;
    suspended(): Promise<Approval[]>;
    get(id: string): Promise<Approval | undefined>;
  };
  scheduled(): Promise<AgentEvent[]>;
}

/** The calls held in one node's instances: for a person, suspended (timer or signal), and messages for later. */
export interface HeldCalls {
  approvals: Approval[];
  suspended: Approval[];
  later: AgentEvent[];
}

/** The same over the cluster, each naming its node. */
export interface ClusterHeld {
  approvals: Array<Approval & { node: string }>;
  suspended: Array<Approval & { node: string }>;
  later: Array<AgentEvent & { node: string }>;
}

/** What one node asks another for these reads. */
export type HeldReadApi = {
  held: { request: Record<string, never>; response: HeldCalls };
  /** The node's copy of an approval, and whether the node runs its instance. */
  approval: { request: { id: string }; response: { approval: Approval | null; runs: boolean } };
};

/** Whether this node runs an instance. */
export type Runs = (agent: string, instanceKey: string) => boolean;

/** The held calls of the instances this node runs (its stale copies of others' left out). */
export async function ownHeld(host: HeldHost, runs: Runs): Promise<HeldCalls> {
  const mine = <T extends { agent: string; instanceKey: string }>(rows: T[]) =>
    rows.filter((row) => runs(row.agent, row.instanceKey));
  const [approvals, suspended, later] = await Promise.all([
    host.approvals.pending(),
    host.approvals.suspended(),
    host.scheduled(),
  ]);
  return { approvals: mine(approvals), suspended: mine(suspended), later: mine(later) };
}

/** This node's copy of an approval, and whether it runs its instance. */
export async function ownCopy(host: HeldHost, runs: Runs, id: string): Promise<HeldReadApi["approval"]["response"]> {
  const approval = (await host.approvals.get(id)) ?? null;
  return { approval, runs: approval !== null && runs(approval.agent, approval.instanceKey) };
}

/** Every node's answer merged: each call once (by id; an instance runs on one node), oldest first, with its node. */
export function mergeHeld(answers: ReadonlyArray<{ node: string; value: HeldCalls }>): ClusterHeld {
  const once = <T>(rows: Array<T & { node: string }>, id: (row: T) => string, at: (row: T) => number) => {
    const seen = new Map<string, T & { node: string }>();
    for (const row of rows) if (!seen.has(id(row))) seen.set(id(row), row);
    return [...seen.values()].sort((a, b) => at(a) - at(b));
  };
  const tagged = <K extends keyof HeldCalls>(key: K) =>
    answers.flatMap(({ node, value }) => (value[key] ?? []).map((row) => ({ ...row, node })));
  return {
    approvals: once<Approval>(tagged("approvals") as Array<Approval & { node: string }>, byId, requested),
    suspended: once<Approval>(tagged("suspended") as Array<Approval & { node: string }>, byId, requested),
    later: once<AgentEvent>(
      tagged("later") as Array<AgentEvent & { node: string }>,
      byId,
      (event) => event.notBefore ?? 0,
    ),
  };
}

/** The copy to go by: the running node's, else a decided one, else any. */
export function bestCopy(answers: ReadonlyArray<HeldReadApi["approval"]["response"]>): Approval | undefined {
  const copies = answers.filter((answer) => answer.approval !== null);
  const best =
    copies.find((answer) => answer.runs) ??
    copies.find((answer) => answer.approval?.decision !== undefined) ??
    copies[0];
  return best?.approval ?? undefined;
}

const byId = (row: { id: string }) => row.id;
const requested = (approval: Approval) => approval.requestedAt;
