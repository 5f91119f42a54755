/**
 * A person's approvals across a cluster of two real `goondan run --cluster` nodes on the local NATS and the loopback
 * LLM (approval-cluster.ts): a call of `guarded` is held for a decision on node A, and `POST /v1/approvals/:id` is
 * sent to the other node B:
 *   - A alive: B answers 200, the turn on A goes on once (the side effect once, its result shown to the model once);
 *     a second decision through either node is 409 E_APPROVAL_DECIDED; `GET /v1/approvals` and the `timers` of
 *     `GET /v1/schedules` on either node list each pending approval and timer once, with the node that holds it;
 *   - A killed before the decision, while its lease still holds (a 10 s lease): B keeps the decision, takes the
 *     instance over and applies it once;
 *   - A stalled (SIGSTOP) when the decision comes, then killed: named `unanswered` by B's list, the decision kept,
 *     and applied once by B; A started again on its state root (its stale copies) lists nothing stale: each pending
 *     timer once, from the node that holds it.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { natsAvailable } from "../helpers/nats.ts";
import {
  approvalCluster,
  decideOn,
  guardedOwner,
  heldCall,
  listApprovals,
  listTimers,
  resultShown,
  submitGuarded,
  type ApprovalCluster,
} from "./approval-cluster.ts";
import type { ClusterNodeProcess } from "./cluster-swarm.ts";
import { answered, kill } from "./timer-cluster.ts";

const defer = useCleanups();
const TEST_TIMEOUT_MS = 300_000;
const KEPT = "approval decision kept for the node that runs its instance next";

/** Once the turn is answered and a little after: how often the held call ran and its result was shown. */
async function judge(cluster: ApprovalCluster, id: string, label: string) {
  await until(() => cluster.effects().includes(id) && resultShown(cluster.seen, id).length > 0, {
    timeoutMs: 90_000,
    intervalMs: 200,
  });
  await Bun.sleep(2000);
  const ran = cluster.effects().filter((one) => one === id).length;
  const shown = resultShown(cluster.seen, id).length;
  console.log(`${label}: ran ${ran} time(s), result shown ${shown} time(s)`);
  return { ran, shown };
}

async function conflictEverywhere(nodes: ClusterNodeProcess[], approvalId: string) {
  for (const node of nodes) {
    const again = await decideOn(node.base, approvalId, "deny");
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe("E_APPROVAL_DECIDED");
  }
}

describe.skipIf(!natsAvailable)("approvals across the nodes of a cluster", () => {
  it(
    "an approval held on one node is listed once by every node and decided through the other, once",
    async () => {
      const cluster = await approvalCluster(defer, "appr-alive");
      const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2")];
      const held = await heldCall(nodes, nodes[0] as ClusterNodeProcess, "a1", "alive");
      await submitGuarded(held.owner.base, "sleep 600 nap", "napper");
      const napOwner = await until(() => guardedOwner(nodes, "napper"), { timeoutMs: 60_000, intervalMs: 100 });
      await until(async () => (await listTimers(napOwner.base)).timers.some((row) => row.instanceKey === "napper"), {
        timeoutMs: 60_000,
        intervalMs: 200,
      });
      for (const node of nodes) {
        const listed = await listApprovals(node.base);
        expect(listed.approvals.filter((row) => row.id === held.approvalId)).toEqual([
          expect.objectContaining({ id: held.approvalId, node: held.owner.name }),
        ]);
        expect(listed.unanswered).toEqual([]);
        const timers = await listTimers(node.base);
        expect(timers.timers.filter((row) => row.instanceKey === "napper")).toEqual([
          expect.objectContaining({ node: napOwner.name }),
        ]);
      }

      const decided = await decideOn(held.other.base, held.approvalId);
      expect(decided.status).toBe(200);
      expect(decided.body.approval).toEqual(expect.objectContaining({ id: held.approvalId, decision: "approve" }));
      // Applied by the owner while the caller waited, not kept for later.
      expect(held.other.lines.some((line) => line.msg === KEPT)).toBe(false);
      expect((await answered(held.other.base, held.eventId)).response).toContain("a1");
      await conflictEverywhere(nodes, held.approvalId);
      for (const node of nodes) expect((await listApprovals(node.base)).approvals).toEqual([]);
      expect(await judge(cluster, "a1", "decided through the other node, owner alive")).toEqual({ ran: 1, shown: 1 });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a decision sent while the dead owner's lease still holds is kept and applied once by the node that takes over",
    async () => {
      // A 10 s lease: the dead node's lease holds at least 7.5 s after the kill, so the decision surely comes first.
      const cluster = await approvalCluster(defer, "appr-dead", 10_000);
      const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2")];
      const held = await heldCall(nodes, nodes[1] as ClusterNodeProcess, "d1", "dead");
      await kill(held.owner);
      const decided = await decideOn(held.other.base, held.approvalId);
      expect(guardedOwner(nodes, "dead")).toBe(held.owner);
      expect(decided.status).toBe(200);
      expect(held.other.lines.some((line) => line.msg === KEPT)).toBe(true);
      expect(decided.body.approval).toEqual(expect.objectContaining({ id: held.approvalId, decision: "approve" }));
      expect((await answered(held.other.base, held.eventId)).response).toContain("d1");
      expect(guardedOwner(nodes, "dead")).toBe(held.other);
      await conflictEverywhere([held.other], held.approvalId);
      expect((await listApprovals(held.other.base)).approvals).toEqual([]);
      expect(await judge(cluster, "d1", "decided while the owner was dead")).toEqual({ ran: 1, shown: 1 });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a decision its stalled owner never took is applied once after the takeover, and nothing stale is listed after",
    async () => {
      const cluster = await approvalCluster(defer, "appr-stalled", 10_000);
      // Both instances on n1 (the only node then): n2 joins once the call is held and the timer armed.
      const owner = await cluster.startNode("n1");
      const held = await heldCall([owner], owner, "s1", "stalled");
      await submitGuarded(owner.base, "sleep 600 nap", "napper");
      await until(async () => (await listTimers(owner.base)).timers.some((row) => row.instanceKey === "napper"), {
        timeoutMs: 60_000,
        intervalMs: 200,
      });
      const survivor = await cluster.startNode("n2");
      const nodes = [owner, survivor];
      owner.proc.kill("SIGSTOP");
      // A node that does not answer is named, as the other cluster reads name it.
      expect((await listApprovals(survivor.base)).unanswered).toEqual([{ node: owner.name, status: "timeout" }]);
      const decided = await decideOn(survivor.base, held.approvalId);
      expect(decided.status).toBe(200);
      expect(decided.body.approval).toEqual(expect.objectContaining({ id: held.approvalId, decision: "approve" }));
      // Kept, not applied: the stalled owner did not answer.
      expect(survivor.lines.some((line) => line.msg === KEPT)).toBe(true);
      await kill(owner);
      expect((await answered(survivor.base, held.eventId)).response).toContain("s1");
      expect(guardedOwner(nodes, "stalled")).toBe(survivor);
      expect(await judge(cluster, "s1", "decided while the owner was stalled, then killed")).toEqual({
        ran: 1,
        shown: 1,
      });

      // The old owner back on its state root: its copies of both instances are stale now.
      const back = await cluster.startNode(owner.name);
      await until(async () => (await listTimers(survivor.base)).timers.some((row) => row.instanceKey === "napper"), {
        timeoutMs: 60_000,
        intervalMs: 200,
      });
      for (const node of [back, survivor]) {
        const timers = await until(
          async () => {
            const listed = await listTimers(node.base);
            return listed.unanswered?.length === 0 && listed;
          },
          { timeoutMs: 60_000, intervalMs: 500 },
        );
        expect(timers.timers.filter((row) => row.instanceKey === "napper")).toEqual([
          expect.objectContaining({ node: survivor.name }),
        ]);
        expect((await listApprovals(node.base)).approvals).toEqual([]);
      }
      await conflictEverywhere([back, survivor], held.approvalId);
    },
    TEST_TIMEOUT_MS,
  );
});
