/**
 * Two `goondan run --cluster` nodes: an instance that runs on n2 is read through n1's API as on one host — the
 * instance table with each row's node, its conversation from its owner, its runtime events and its trace (each event
 * naming the node that recorded it), paged with a cursor per node, and where an event n1 accepted for it stands — and
 * `goondan logs` / `goondan instance list`
 * pointed at n1 print the node column. A node that stalls is named as unanswered instead of silently left out, and
 * once an instance moved from n2 to n1 (n2 stopped, then back), its events come from both nodes, in time order.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, until } from "../helpers/goondan-process.ts";
import { natsAvailable } from "../helpers/nats.ts";
import { ask, clusterProcesses, clusterSwarm } from "./cluster-swarm.ts";

const defer = useCleanups();

interface Event {
  node: string;
  at: string;
  type: string;
  agent: string;
  instanceKey: string;
  traceId: string;
}

async function get(base: string, path: string): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

function cli(args: string[]): { stdout: string; stderr: string; exitCode: number | null } {
  const run = Bun.spawnSync([process.execPath, GOONDAN_BIN, ...args], { timeout: 30_000 });
  return { stdout: run.stdout.toString(), stderr: run.stderr.toString(), exitCode: run.exitCode };
}

describe.skipIf(!natsAvailable)("the cluster seen from any node", () => {
  it("reads an instance on n2 through n1: table, conversation, runtime events, trace, logs; names a stalled node; merges a moved instance's events", async () => {
    const cluster = await clusterSwarm(defer, { label: "view", workers: 6 });
    const n1 = await cluster.startNode("n1");
    let n2 = await cluster.startNode("n2");
    const port1 = new URL(n1.base).port;

    // Six jobs accepted by n1: twelve instances spread over both nodes.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => ask(n1.base, { input: `job-${i}`, instanceKey: `c-${i}` })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    const table = (await clusterProcesses(n1.base)).filter((row) => row.kind === "agent");
    const onN2 = table.find((row) => row.node === "n2" && row.agent === "coordinator");
    expect(onN2).toBeDefined();
    const key = onN2?.instanceKey as string;
    const job = `job-${key.slice(2)}`;

    // The instance table on n1: every instance once, with the node that runs it, nobody missing.
    const instances = await get(n1.base, "/v1/instances");
    expect(instances.status).toBe(200);
    expect(instances.body.unanswered).toEqual([]);
    expect(instances.body.instances).toHaveLength(12);
    const nodeOf = new Map(table.map((row) => [`${row.agent}/${row.instanceKey}`, row.node]));
    for (const row of instances.body.instances) expect(row.node).toBe(nodeOf.get(`${row.agent}/${row.instanceKey}`));

    // Its conversation, read through n1, comes from n2 (the owner), with the job in it.
    const conversation = await get(n1.base, `/v1/instances/coordinator/${key}/messages`);
    expect(conversation.status).toBe(200);
    expect(conversation.body.node).toBe("n2");
    expect(JSON.stringify(conversation.body.messages)).toContain(`done ${job}: did ${job}`);

    // Its runtime events, read through n1: n2's, in time order, with a cursor per node that pages forward.
    const events = await get(n1.base, `/v1/instances/coordinator/${key}/events`);
    expect(events.status).toBe(200);
    const list = events.body.events as Event[];
    expect(list.map((event) => event.type)).toContain("turn.completed");
    expect(new Set(list.map((event) => event.node))).toEqual(new Set(["n2"]));
    expect(list.map((event) => event.at)).toEqual(list.map((event) => event.at).sort());
    expect(events.body.cursor).toMatch(/(^|,)n2:\d+/);
    const next = await get(n1.base, `/v1/instances/coordinator/${key}/events?after=${events.body.cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.events).toEqual([]);
    const last = await get(n1.base, `/v1/instances/coordinator/${key}/events?limit=1`);
    expect(last.body.events).toEqual([list.at(-1)]);

    // The turn's trace spans the coordinator and its worker, on whichever nodes they ran.
    const traceId = list[0]?.traceId as string;
    const trace = await get(n1.base, `/v1/traces/${traceId}`);
    expect(trace.status).toBe(200);
    const traced = trace.body.events as Event[];
    const worker = `worker/w-${Number(key.slice(2)) % 6}`;
    expect(
      traced.some((event) => `${event.agent}/${event.instanceKey}` === worker && event.node === nodeOf.get(worker)),
    ).toBe(true);

    // An event n1 accepted for the instance on n2 (n1 keeps no record of it): where it stands, asked of n1.
    const posted = await fetch(`${n1.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: job, instanceKey: key }),
    });
    expect(posted.status).toBe(202);
    const { eventId } = (await posted.json()) as { eventId: string };
    const settled = await until(
      async () => {
        const answer = await get(n1.base, `/v1/events/${eventId}`);
        return answer.status === 200 && answer.body.state === "ok" ? answer.body : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(settled).toMatchObject({ eventId, node: "n2", response: `done ${job}: did ${job}`, unanswered: [] });

    // `goondan logs` and `goondan instance list` pointed at n1 print the node column.
    const logs = cli(["logs", "--port", port1, "--agent", "coordinator", "--instance", key]);
    expect(logs.exitCode).toBe(0);
    expect(logs.stdout).toContain(` n2 coordinator/${key} turn.completed`);
    const listed = cli(["instance", "list", "--port", port1]);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout.split("\n")[0]).toStartWith("NODE");
    expect(listed.stdout).toMatch(new RegExp(`^n2\\s+coordinator\\s+${key}\\s`, "m"));

    // A stalled n2 (SIGSTOP) is still a member: n1 answers without it, within the bound, naming it.
    n2.proc.kill("SIGSTOP");
    const started = Date.now();
    const stalled = await get(n1.base, "/v1/instances");
    const waited = Date.now() - started;
    n2.proc.kill("SIGCONT");
    expect(stalled.status).toBe(200);
    expect(stalled.body.unanswered).toEqual([{ node: "n2", status: "timeout" }]);
    expect(stalled.body.instances.every((row: { node: string }) => row.node === "n1")).toBe(true);
    expect(waited).toBeLessThan(5000);

    // The instance moves: n2 leaves (its leases released), the next job is run by n1 from the state log; with n2
    // back, its events come from both nodes in time order, and its conversation from n1 (the owner now).
    n2.proc.kill("SIGTERM");
    await n2.proc.exited;
    const again = await ask(n1.base, { input: `job-${Number(key.slice(2)) + 6}`, instanceKey: key });
    expect(again.status).toBe(200);
    n2 = await cluster.startNode("n2");
    const moved = await until(
      async () => {
        const answer = await get(n1.base, `/v1/instances/coordinator/${key}/events`);
        const nodes = new Set((answer.body.events as Event[]).map((event) => event.node));
        return nodes.has("n1") && nodes.has("n2") ? answer : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const merged = moved.body.events as Event[];
    expect(merged.map((event) => event.at)).toEqual(merged.map((event) => event.at).sort());
    expect(merged.filter((event) => event.type === "turn.completed").map((event) => event.node)).toEqual([
      "n2",
      "n2",
      "n1",
    ]);
    const now = await get(n2.base, `/v1/instances/coordinator/${key}/messages`);
    expect(now.body.node).toBe("n1");
    expect(JSON.stringify(now.body.messages)).toContain(`done ${job}: did ${job}`);
  }, 180_000);
});
