/**
 * Signals across a cluster of two real `goondan run --cluster` nodes on the local NATS (lease TTL 3 s, or 10 s where
 * the signal must come before the takeover) and the loopback LLM (timer-cluster.ts): a turn waits in
 * `timer__waitForSignal` on node A, and `POST /v1/signals/:name` is sent to the other node B:
 *   - while A runs: B answers 202 naming the waiting event, and the turn on A goes on with the payload;
 *   - after A was killed and B took the instance over;
 *   - right after A was killed, while A's lease still holds (the takeover is under way): B keeps the signal and the
 *     turn gets it once B has taken the instance over;
 *   - a signal nobody waits for anywhere is 404 E_SIGNAL_NOT_FOUND, and a second one for a wait already woken too.
 * Each counts how often the model was shown the wait's result: once (0 lost, 0 duplicated).
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { natsAvailable } from "../helpers/nats.ts";
import type { ClusterNodeProcess } from "./cluster-swarm.ts";
import {
  answered,
  claimedBy,
  kill,
  ownerOf,
  pendingTimer,
  resultsShown,
  signal,
  submit,
  timerCluster,
  type TimerCluster,
} from "./timer-cluster.ts";

const defer = useCleanups();
const TEST_TIMEOUT_MS = 240_000;

/** A turn waiting for `name` (10 minutes) on whichever node placement picked: the event, its node and the other. */
async function waitFor(
  cluster: TimerCluster,
  nodes: ClusterNodeProcess[],
  name: string,
): Promise<{ eventId: string; owner: ClusterNodeProcess; other: ClusterNodeProcess }> {
  const eventId = await submit((nodes[0] as ClusterNodeProcess).base, `signal ${name} 600 ${name}`, name);
  const owner = await claimedBy(nodes, name);
  await pendingTimer(owner.base, name);
  return { eventId, owner, other: nodes.find((node) => node !== owner) as ClusterNodeProcess };
}

function judge(cluster: TimerCluster, name: string, label: string): number {
  const shown = resultsShown(cluster.seen, `signal ${name} 600 ${name}`);
  console.log(
    `${label}: shown ${shown.length} time(s); lost ${shown.length === 0 ? 1 : 0}, duplicated ${Math.max(0, shown.length - 1)}`,
  );
  return shown.length;
}

describe.skipIf(!natsAvailable)("signals across the nodes of a cluster", () => {
  it(
    "a signal sent to one node wakes the turn waiting on the other, alive or taken over",
    async () => {
      const cluster = await timerCluster(defer, "signal-nodes");
      const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2")];

      // A alive: the signal is sent to B.
      const alive = await waitFor(cluster, nodes, "deploy-a");
      const nobody = await signal(alive.other.base, "nobody-waits", 1);
      expect(nobody.status).toBe(404);
      expect(nobody.body.error?.code).toBe("E_SIGNAL_NOT_FOUND");
      const sent = await signal(alive.other.base, "deploy-a", { version: "1.2.0" });
      expect(sent.status).toBe(202);
      expect(sent.body.delivered).toEqual([expect.objectContaining({ eventId: alive.eventId })]);
      const outcome = await answered(alive.other.base, alive.eventId);
      expect(outcome.response).toContain('"version":"1.2.0"');
      expect((await signal(alive.other.base, "deploy-a", 2)).status).toBe(404);

      // A killed, its instance taken over by B: the signal is sent to B.
      const later = await waitFor(cluster, nodes, "deploy-b");
      await kill(later.owner);
      await until(() => ownerOf(nodes, "deploy-b") === later.other, { timeoutMs: 60_000, intervalMs: 200 });
      const afterTakeover = await until(
        async () => {
          const answer = await signal(later.other.base, "deploy-b", { version: "2.0.0" });
          return answer.status === 202 && answer;
        },
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      expect(afterTakeover.body.delivered).toEqual([expect.objectContaining({ eventId: later.eventId })]);
      expect((await answered(later.other.base, later.eventId)).response).toContain('"version":"2.0.0"');
      await Bun.sleep(2000);
      expect(judge(cluster, "deploy-a", "signal to the other node, owner alive")).toBe(1);
      expect(judge(cluster, "deploy-b", "signal to the node that took the instance over")).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a signal sent while the dead owner's lease still holds is kept and wakes the turn once it is taken over",
    async () => {
      // A 10 s lease: the dead node's lease holds at least 7.5 s after the kill, so the signal surely comes first.
      const cluster = await timerCluster(defer, "signal-takeover", 10_000);
      const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2")];
      const waiting = await waitFor(cluster, nodes, "deploy-c");
      await kill(waiting.owner);
      const sent = await signal(waiting.other.base, "deploy-c", { version: "3.0.0" });
      expect(ownerOf(nodes, "deploy-c")).toBe(waiting.owner);
      // Kept, not applied: the node it found holding the lease did not answer.
      expect(waiting.other.lines.some((line) => String(line.msg).startsWith("kept a signal"))).toBe(true);
      expect(sent.status).toBe(202);
      expect(sent.body.delivered).toEqual([expect.objectContaining({ eventId: waiting.eventId })]);
      const outcome = await answered(waiting.other.base, waiting.eventId);
      expect(outcome.response).toContain('"version":"3.0.0"');
      expect(ownerOf(nodes, "deploy-c")).toBe(waiting.other);
      // Kept once, delivered once: nothing left for a second signal.
      expect((await signal(waiting.other.base, "deploy-c", 4)).status).toBe(404);
      await Bun.sleep(2000);
      expect(judge(cluster, "deploy-c", "signal sent during the takeover")).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );
});
