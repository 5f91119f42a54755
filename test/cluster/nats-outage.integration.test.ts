/**
 * NATS lost by every node at once (each node reaches it through a loopback TCP proxy of its own; the test stops them
 * all for longer than the lease TTL): new events are refused 503 E_CLUSTER_UNAVAILABLE, health and the process table
 * say the node is disconnected, every child stops within the TTL. When the proxies listen again, each node claims
 * back exactly the instances it held (from the lease owners and the lease history: no other node claims them), takes
 * them back without a replay where nobody wrote their state since, and the conversations are intact; events accepted
 * before the outage and waiting in the intake are answered once (each side effect once), and new events work.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { clusterNames } from "../../src/cluster/nats/names.ts";
import { LeaseTable } from "../../src/cluster/lease/lease-table.ts";
import { LeaseWatch, type LeaseChange } from "../../src/cluster/lease/lease-watch.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { isAlive, until } from "../helpers/goondan-process.ts";
import { connectTest, NATS_URL, natsAvailable } from "../helpers/nats.ts";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.ts";
import { ask, clusterProcesses, clusterSwarm, type ClusterNodeProcess } from "./cluster-swarm.ts";

const defer = useCleanups();
const TTL_MS = 3000;

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const post = (base: string, body: Record<string, unknown>) =>
  json(`${base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe.skipIf(!natsAvailable)("NATS lost by every node", () => {
  it("refuses new events, stops children within the TTL, then each node claims back its own instances and answers what waited, once", async () => {
    let delayMs = 0;
    const cluster = await clusterSwarm(defer, { label: "outage", workers: 2, ttlMs: TTL_MS, delayMs: () => delayMs });
    const target = new URL(NATS_URL);
    const proxies: TcpProxy[] = [];
    const nodes: ClusterNodeProcess[] = [];
    for (const name of ["n1", "n2"]) {
      const proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port || 4222) });
      defer(() => proxy.close());
      proxies.push(proxy);
      nodes.push(await cluster.startNode(name, { url: `nats://${proxy.address}` }));
    }
    const [n1, n2] = nodes as [ClusterNodeProcess, ClusterNodeProcess];
    const byName = new Map(nodes.map((node) => [node.name, node]));

    const observer = await connectTest(defer, { node: "observer" });
    const leases = await LeaseTable.open({
      connection: observer,
      bucket: clusterNames(cluster.swarm).leaseBucket,
      ttlMs: TTL_MS,
    });
    const history: LeaseChange[] = [];
    const watch = await LeaseWatch.start({ table: leases, onChange: (change) => history.push(change) });
    defer(() => watch.stop());

    // Instances on both nodes: workers asked directly, and coordinators delegating across nodes.
    const workers = ["w-0", "w-1", "w-2", "w-3"];
    const warm = await Promise.all(
      workers.map((instanceKey, i) => ask(nodes[i % 2]!.base, { agent: "worker", instanceKey, input: `job-${i}` })),
    );
    expect(warm.map((answer) => answer.body.response)).toEqual(workers.map((_, i) => `did job-${i}`));
    const delegated = await Promise.all(
      ["c-0", "c-1"].map((instanceKey, i) => ask(nodes[i]!.base, { instanceKey, input: `job-${10 + i}` })),
    );
    expect(delegated.map((answer) => answer.body.response)).toEqual([
      "done job-10: did job-10",
      "done job-11: did job-11",
    ]);
    const before = new Map((await leases.holders()).map((holder) => [holder.key, holder.owner]));
    expect(before.size).toBe(6);
    expect(new Set(before.values())).toEqual(new Set(["n1", "n2"]));
    const ownerOf = (agent: string, instanceKey: string) =>
      before.get(clusterNames(cluster.swarm).instanceLeaseKey(agent, instanceKey)) as string;
    const children = (await clusterProcesses(n1.base)).filter((row) => row.kind === "agent" && row.pid !== null);
    expect(children.length).toBe(6);

    // Events accepted before the outage, each through the node that does not own its instance: the first of each
    // instance runs slowly when NATS goes, the second waits in the intake.
    const waiting: { eventId: string; owner: string; job: string; instanceKey: string }[] = [];
    delayMs = 1500;
    for (const instanceKey of ["w-0", "w-1"]) {
      const owner = ownerOf("worker", instanceKey);
      const other = nodes.find((node) => node.name !== owner) as ClusterNodeProcess;
      for (const job of [`job-${20 + waiting.length}`, `job-${21 + waiting.length}`]) {
        const accepted = await post(other.base, { agent: "worker", instanceKey, input: job });
        expect(accepted.status).toBe(202);
        waiting.push({ eventId: accepted.body.eventId as string, owner, job, instanceKey });
      }
    }

    // NATS goes away for every node.
    const cutAt = Date.now();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
    // Watched from now on, while the test asks the nodes what they say.
    const stoppedAt = until(() => children.every((row) => !isAlive(row.pid as number)), {
      timeoutMs: TTL_MS + 2000,
    }).then(() => Date.now());
    for (const node of nodes) {
      const refused = await until(async () => {
        const answer = await post(node.base, { agent: "worker", instanceKey: "w-0", input: "job-99" });
        return answer.status === 503 ? answer : undefined;
      });
      expect((refused.body.error as { code: string }).code).toBe("E_CLUSTER_UNAVAILABLE");
      const health = await json(`${node.base}/healthz`);
      expect(health.body).toMatchObject({
        status: "disconnected",
        cluster: { node: node.name, connection: "reconnecting" },
      });
    }
    expect((await stoppedAt) - cutAt).toBeLessThan(TTL_MS);
    const table = await json(`${n1.base}/v1/processes`);
    expect(table.body.cluster).toMatchObject({ node: "n1", connection: "reconnecting", instances: 0 });
    // Out for longer than the TTL: every lease lapsed on the server, so nothing but the nodes' memory keeps them.
    await until(async () => (await leases.holders()).length === 0 && Date.now() - cutAt > TTL_MS + 1000, {
      timeoutMs: TTL_MS * 3,
      intervalMs: 200,
    });
    for (const node of nodes) {
      const status = (await json(`${node.base}/v1/processes`)).body.cluster as { awaitingReclaim: number };
      expect(status.awaitingReclaim).toBe([...before.values()].filter((owner) => owner === node.name).length);
    }

    // NATS is back: every node claims back exactly what it held, and nobody else claims any of it.
    delayMs = 0;
    const restoredAt = Date.now();
    await Promise.all(proxies.map((proxy) => proxy.start()));
    await until(
      async () => {
        const now = new Map((await leases.holders()).map((holder) => [holder.key, holder.owner]));
        return [...before].every(([key, owner]) => now.get(key) === owner);
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const claimsAfter = history.filter(
      (change) => change.type === "claimed" && change.at >= restoredAt && before.has(change.key),
    );
    expect(claimsAfter.length).toBeGreaterThanOrEqual(before.size);
    for (const claim of claimsAfter) expect(claim.owner).toBe(before.get(claim.key) as string);
    for (const node of nodes) {
      const health = await until(async () => {
        const answer = await json(`${node.base}/healthz`);
        return (answer.body.cluster as { member: boolean }).member ? answer : undefined;
      });
      expect(health.body).toMatchObject({ status: "ok", cluster: { connection: "connected", awaitingReclaim: 0 } });
      // Idle instances nobody wrote since are taken back without a replay.
      expect(
        node.lines.filter(
          (line) =>
            line.msg === "took back an instance whose state log still ends at this node's last write; nothing replayed",
        ).length,
      ).toBeGreaterThan(0);
    }

    // What waited is answered, once, by the instance's owner.
    for (const { eventId, owner, job } of waiting) {
      const state = await until(
        async () => {
          const answer = await json(`${(byName.get(owner) as ClusterNodeProcess).base}/v1/events/${eventId}`);
          return answer.status === 200 && answer.body.state !== "accepted" && answer.body.state !== "running"
            ? answer.body
            : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(state).toMatchObject({ state: "ok", response: `did ${job}` });
    }
    const effects = readFileSync(cluster.effectsFile, "utf8").split("\n").filter(Boolean);
    for (const { job } of waiting) expect(effects.filter((line) => line === job)).toEqual([job]);
    // One turn each: its final text is in the owner's conversation once.
    for (const { owner, job, instanceKey } of waiting) {
      const stored = await json(
        `${(byName.get(owner) as ClusterNodeProcess).base}/v1/instances/worker/${instanceKey}/messages`,
      );
      const texts = (stored.body.messages as { data: { role: string; content: unknown } }[])
        .filter((message) => message.data.role === "assistant")
        .map((message) => JSON.stringify(message.data.content));
      expect(texts.filter((text) => text.includes(`"did ${job}"`)).length).toBe(1);
    }
    expect(effects.filter((line) => line === "job-99")).toEqual([]);

    // New events work, and conversations are intact: the coordinator's history holds its job from before.
    const after = await ask(n2.base, { instanceKey: "c-0", input: "job-30" });
    expect(after.body.response).toBe("done job-30: did job-30");
    const conversation = await json(
      `${(byName.get(ownerOf("coordinator", "c-0")) as ClusterNodeProcess).base}/v1/instances/coordinator/c-0/messages`,
    );
    const said = (conversation.body.messages as { data: { role: string; content: unknown } }[])
      .filter((message) => message.data.role === "user")
      .map((message) => JSON.stringify(message.data.content));
    expect(said.some((content) => content.includes("job-10"))).toBe(true);
    expect(said.some((content) => content.includes("job-30"))).toBe(true);
    expect(effects.filter((line) => line === "job-10")).toEqual(["job-10"]);
  }, 150_000);
});
