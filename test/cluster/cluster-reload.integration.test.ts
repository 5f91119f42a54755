/**
 * Cluster-wide reload with three real `goondan run --cluster` nodes, each running its own copy of the bundle (as on
 * separate hosts): the coordinator's system prompt carries a VERSION the loopback model echoes, so every answer shows
 * which configuration its node runs. A new bundle on every node and `POST /v1/restart` on one node reload every node
 * (no event accepted meanwhile is lost); an invalid bundle on the asking node is refused with 422 and no node
 * reloads; a node whose copy differs reports the mismatch (GET /v1/cluster, its log) and drains: it says why
 * (GET /v1/cluster, GET /v1/processes), hands its instances over to the nodes that reloaded (no event lost) and
 * takes no new ones; an agent's self-restart, once every node has the same bundle again, reloads every node, and
 * the node that drained takes instances again.
 */
import { describe, expect, it } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { lastUserText, systemPrompt, type LoopbackReply, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { natsAvailable } from "../helpers/nats.ts";
import { ask, clusterProcesses, clusterSwarm, type ClusterNodeProcess } from "./cluster-swarm.ts";

const defer = useCleanups();
const KEYS = Array.from({ length: 9 }, (_, i) => `k-${i}`);

/**
 * The loopback model: answers `VERSION=<v> <input>`, the version read from the coordinator's system prompt; asked
 * `self-restart`, it first calls the self-restart tool.
 */
function echoVersion(request: LoopbackRequest): LoopbackReply {
  const version = /VERSION=\S+/.exec(systemPrompt(request))?.[0] ?? "VERSION=none";
  const input = lastUserText(request);
  if (input === "self-restart" && request.body.messages.at(-1)?.role === "user")
    return { toolCalls: [{ name: "self-restart__request", args: { reason: "the agent asked" } }] };
  return { text: `${version} ${input}` };
}

/** The coordinator's prompt carries VERSION=<version>, and it may call the built-in self-restart tool. */
function setVersion(bundleDir: string, version: string): void {
  const yaml = join(bundleDir, "goondan.yaml");
  const text = readFileSync(yaml, "utf8")
    .replace(/system: "ROLE=coordinator[^"]*"/, `system: "ROLE=coordinator VERSION=${version}"`)
    .replace(
      `tools: [{ kind: Tool, name: agents, package: "@goondan/base" }]`,
      `tools: [{ kind: Tool, name: agents, package: "@goondan/base" }, { kind: Tool, name: self-restart, package: "@goondan/base" }]`,
    );
  writeFileSync(yaml, text);
}

async function restart(base: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/v1/restart`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface ClusterStatus {
  node: string;
  hash: string;
  cluster?: { hash: string; generation: number; reload?: { by: string } };
  reports: Array<{
    node: string;
    generation: number;
    status: string;
    hash: string;
    announcedHash: string;
    error?: { code: string; message: string };
  }>;
  draining?: { code: string; message: string; generation: number };
}

async function clusterStatus(base: string): Promise<ClusterStatus> {
  return (await (await fetch(`${base}/v1/cluster`)).json()) as ClusterStatus;
}

/** Each instance's answer, asked of the node at `via` (any node accepts events for any instance). */
async function answers(nodes: ClusterNodeProcess[], input: string): Promise<Record<string, string>> {
  const replies = await Promise.all(
    KEYS.map((instanceKey, i) => ask((nodes[i % nodes.length] as ClusterNodeProcess).base, { input, instanceKey })),
  );
  return Object.fromEntries(
    replies.map((reply, i) => [KEYS[i] as string, `${reply.status} ${String(reply.body.response)}`]),
  );
}

const all = (version: string, input: string) =>
  Object.fromEntries(KEYS.map((key) => [key, `200 VERSION=${version} ${input}`]));

describe.skipIf(!natsAvailable)("cluster-wide reload", () => {
  it("reloads every node on a restart asked of one (POST /v1/restart or self-restart), refuses an invalid bundle everywhere, and drains a node with another bundle (its instances handed over) until a later reload it takes", async () => {
    const cluster = await clusterSwarm(defer, {
      label: "reload",
      ttlMs: 3000,
      respond: echoVersion,
      bundlePerNode: true,
      delayMs: () => 100,
    });
    const names = ["n1", "n2", "n3"];
    for (const name of names) setVersion(cluster.bundleDir(name), "1");
    const nodes = [await cluster.startNode("n1"), await cluster.startNode("n2"), await cluster.startNode("n3")];
    const [n1, n2, n3] = nodes as [ClusterNodeProcess, ClusterNodeProcess, ClusterNodeProcess];

    // Nine instances spread over the three nodes, all on version 1.
    expect(await answers(nodes, "a")).toEqual(all("1", "a"));
    const placed = (await clusterProcesses(n1.base)).filter((row) => row.kind === "agent");
    const nodeOf = Object.fromEntries(placed.map((row) => [row.instanceKey, row.node]));
    expect(new Set(Object.values(nodeOf))).toEqual(new Set(names));

    // Version 2 on every node; a restart asked of n1 reloads all three, and no event accepted meanwhile is lost.
    for (const name of names) setVersion(cluster.bundleDir(name), "2");
    const during = answers(nodes, "during");
    await Bun.sleep(50);
    const asked = await restart(n1.base);
    expect(asked).toEqual({ status: 202, body: { accepted: true, issues: [] } });
    const duringAnswers = await during;
    for (const key of KEYS) expect(duringAnswers[key]).toMatch(/^200 VERSION=[12] during$/);
    await until(
      async () =>
        (await clusterStatus(n2.base)).reports.filter(
          (report) => report.generation === 1 && report.status === "reloaded",
        ).length === 3,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(await answers(nodes, "b")).toEqual(all("2", "b"));
    // The instances stayed where they were: a reload restarts children, it does not move leases.
    const after = (await clusterProcesses(n3.base)).filter((row) => row.kind === "agent");
    expect(Object.fromEntries(after.map((row) => [row.instanceKey, row.node]))).toEqual(nodeOf);
    const status = await clusterStatus(n3.base);
    expect(status.cluster).toMatchObject({ generation: 1, reload: { by: "n1" } });
    expect(status.hash).toBe(status.cluster?.hash as string);

    // An invalid bundle on the asking node: 422 with the issue, nothing announced, no node reloads (n2, n3 hold a
    // valid version 3 they would load if they did).
    writeFileSync(
      join(cluster.bundleDir("n1"), "goondan.yaml"),
      readFileSync(join(cluster.bundleDir("n1"), "goondan.yaml"), "utf8").replace(
        "tools: [Tool/effects,",
        "tools: [Tool/missing,",
      ),
    );
    setVersion(cluster.bundleDir("n2"), "3");
    setVersion(cluster.bundleDir("n3"), "3");
    const refused = await restart(n1.base);
    expect(refused.status).toBe(422);
    expect((refused.body.error as { code: string }).code).toBe("E_CONFIG_INVALID");
    expect(JSON.stringify(refused.body)).toContain("Tool/missing");
    await Bun.sleep(1000);
    expect((await clusterStatus(n1.base)).cluster?.generation).toBe(1);
    expect(await answers(nodes, "c")).toEqual(all("2", "c"));

    // n1 and n2 get version 3, n3 another copy: a restart asked of n2 reloads n1 and n2; n3 keeps version 2 and says why.
    setVersion(cluster.bundleDir("n1"), "3");
    writeFileSync(
      join(cluster.bundleDir("n1"), "goondan.yaml"),
      readFileSync(join(cluster.bundleDir("n1"), "goondan.yaml"), "utf8").replace(
        "tools: [Tool/missing,",
        "tools: [Tool/effects,",
      ),
    );
    setVersion(cluster.bundleDir("n3"), "3-other");
    expect((await restart(n2.base)).status).toBe(202);
    // Events keep coming while n3 refuses and hands its instances over: each is answered, on version 2 (a turn n3
    // ran before it handed its instance over) or 3.
    const whileDraining = answers(nodes, "d");
    const reports = await until(
      async () => {
        const current = (await clusterStatus(n1.base)).reports.filter((report) => report.generation === 2);
        return current.length === 3 ? current : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(reports.map((report) => [report.node, report.status])).toEqual([
      ["n1", "reloaded"],
      ["n2", "reloaded"],
      ["n3", "refused"],
    ]);
    const mismatch = reports[2];
    expect(mismatch?.error?.code).toBe("E_CLUSTER_BUNDLE_MISMATCH");
    expect(mismatch?.error?.message).toContain(mismatch?.announcedHash as string);
    expect(mismatch?.error?.message).toContain(mismatch?.hash as string);
    expect(mismatch?.hash).not.toBe(mismatch?.announcedHash);
    expect(
      n3.lines.some((line) => line.msg === "cluster reload refused: this node keeps running its configuration"),
    ).toBe(true);
    for (const [key, answer] of Object.entries(await whileDraining))
      expect([key, answer]).toEqual([key, expect.stringMatching(/^200 VERSION=[23] d$/)]);

    // n3 drains: it says why, hands every instance over (none runs there any more) and the nodes that reloaded
    // answer for them; new instances asked of n3 go to n1 and n2.
    const draining = await until(async () => (await clusterStatus(n3.base)).draining, {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    expect(draining).toMatchObject({ code: "E_CLUSTER_BUNDLE_MISMATCH", generation: 2 });
    const standing = (await (await fetch(`${n3.base}/v1/processes`)).json()) as {
      cluster: { draining?: { code: string } };
    };
    expect(standing.cluster.draining?.code).toBe("E_CLUSTER_BUNDLE_MISMATCH");
    await until(
      async () => (await clusterProcesses(n1.base)).every((row) => row.node !== "n3" || row.kind !== "agent"),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(await answers(nodes, "d2")).toEqual(all("3", "d2"));
    const fresh = await Promise.all(
      ["n-0", "n-1", "n-2", "n-3"].map((instanceKey) => ask(n3.base, { input: "new", instanceKey })),
    );
    expect(fresh.map((reply) => `${reply.status} ${String(reply.body.response)}`)).toEqual(
      Array(4).fill("200 VERSION=3 new"),
    );
    expect((await clusterProcesses(n2.base)).filter((row) => row.node === "n3" && row.kind === "agent")).toEqual([]);

    // The same version 4 on every node again; an agent calls self-restart: every node reloads, n3 included, and n3
    // takes instances again (the least loaded node, it gets new ones).
    for (const name of names) setVersion(cluster.bundleDir(name), "4");
    const selfRestart = await ask(n3.base, { input: "self-restart", instanceKey: KEYS[0] as string });
    expect(selfRestart.body.response).toBe("VERSION=3 self-restart");
    await until(
      async () =>
        (await clusterStatus(n1.base)).reports.filter(
          (report) => report.generation === 3 && report.status === "reloaded",
        ).length === 3,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect((await clusterStatus(n3.base)).draining).toBeUndefined();
    expect(await answers(nodes, "e")).toEqual(all("4", "e"));
    // Asked of n3, whose own standing is current (another node sees it drop `draining` with n3's next heartbeat).
    const late = await Promise.all(
      ["m-0", "m-1", "m-2", "m-3"].map((instanceKey) => ask(n3.base, { input: "late", instanceKey })),
    );
    expect(late.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect(
      (await clusterProcesses(n1.base)).filter((row) => row.node === "n3" && row.kind === "agent").length,
    ).toBeGreaterThan(0);
  }, 180_000);
});
