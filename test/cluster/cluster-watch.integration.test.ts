/**
 * Two `goondan run --cluster` nodes: `GET /v1/watch` on n1 shows the whole cluster live — a worker that runs on n2
 * is seen turn by turn and tool call by tool call, each event naming n2, and every coordinator's events name the node
 * that runs it; `after=0` replays both nodes' stored events, none twice; `goondan watch --port` pointed at n1 prints
 * n2's events with their node.
 */
import { describe, expect, it } from "bun:test";
import { createClient } from "../../src/client/index.ts";

interface WatchNotice {
  unanswered: Array<{ node: string; status: string }>;
  replay?: boolean;
}
import { killChild, useCleanups, type Defer } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, until } from "../helpers/goondan-process.ts";
import { natsAvailable } from "../helpers/nats.ts";
import { ask, clusterProcesses, clusterSwarm } from "./cluster-swarm.ts";

const defer = useCleanups();

interface Event {
  node?: string;
  at: string;
  type: string;
  agent: string;
  instanceKey: string;
}

/** Opens `GET /v1/watch` and reads its SSE body as it comes (until the test ends). */
async function openWatch(defer: Defer, base: string, query = ""): Promise<{ events: Event[]; notices: WatchNotice[] }> {
  const abort = new AbortController();
  defer(() => abort.abort());
  const params = Object.fromEntries(new URLSearchParams(query));
  let opened: () => void = () => {};
  const open = new Promise<void>((resolve) => (opened = resolve));
  const watch = createClient({ baseUrl: base }).watch({
    ...params,
    signal: abort.signal,
    reconnect: false,
    onOpen: () => opened(),
  });
  const events: Event[] = [];
  const notices: WatchNotice[] = [];
  void (async () => {
    try {
      for await (const item of watch) {
        if (item.type === "runtime") events.push(item.event as unknown as Event);
        else notices.push({ unanswered: item.unanswered, ...(item.replay ? { replay: true } : {}) });
      }
    } catch {
      // aborted at the end of the test
    }
  })();
  await open;
  return { events, notices };
}

const of = (agent: string, instanceKey: string) => (event: Event) =>
  event.agent === agent && event.instanceKey === instanceKey;
const keyOf = (event: Event) => JSON.stringify(event);

describe.skipIf(!natsAvailable)("watching the cluster from any node", () => {
  it("shows n2's worker live through n1 with its node, every coordinator with its node, replays both nodes with after=0, and goondan watch prints the node", async () => {
    const cluster = await clusterSwarm(defer, { label: "watch", workers: 36 });
    const n1 = await cluster.startNode("n1");
    const n2 = await cluster.startNode("n2");
    // The answer comes once every member was asked for its events: what follows is seen.
    const live = await openWatch(defer, n1.base);
    expect(live.notices).toEqual([]);

    // Jobs accepted by n1, each on its own coordinator and worker, until some worker runs on n2. Placement goes to
    // the less loaded node, and a node slow to answer a placement is passed over: on a loaded machine n1 may keep a
    // whole round, so up to six rounds are sent, each to workers not placed before.
    let worker: { agent: string; instanceKey: string; node: string } | undefined;
    let jobs = 0;
    for (let round = 0; round < 6 && worker === undefined; round++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => ask(n1.base, { input: `job-${jobs + i}`, instanceKey: `c-${jobs + i}` })),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
      jobs += 6;
      worker = (await clusterProcesses(n1.base)).find(
        (row) => row.kind === "agent" && row.agent === "worker" && row.node === "n2",
      );
    }
    expect(worker).toBeDefined();
    const onN2 = worker as NonNullable<typeof worker>;
    const table = (await clusterProcesses(n1.base)).filter((row) => row.kind === "agent");
    const nodeOf = new Map(table.map((row) => [`${row.agent}/${row.instanceKey}`, row.node]));

    // Live through n1: n2's worker, turn by turn and tool call by tool call, each naming n2.
    const seen = await until(
      () => {
        const types = new Set(live.events.filter(of(onN2.agent, onN2.instanceKey)).map((event) => event.type));
        return types.has("turn.started") &&
          types.has("tool.called") &&
          types.has("tool.completed") &&
          types.has("turn.completed")
          ? live.events.filter(of(onN2.agent, onN2.instanceKey))
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(new Set(seen.map((event) => event.node))).toEqual(new Set(["n2"]));
    // Every coordinator that ran a job: its turn's completion, with the node that runs it.
    const coordinators = await until(
      () => {
        const done = live.events.filter((event) => event.agent === "coordinator" && event.type === "turn.completed");
        return done.length >= jobs ? done : undefined;
      },
      { timeoutMs: 30_000 },
    );
    for (const event of coordinators) expect(event.node).toBe(nodeOf.get(`coordinator/${event.instanceKey}`) as string);
    expect(live.events.every((event) => event.node === "n1" || event.node === "n2")).toBe(true);
    expect(new Set(live.events.map((event) => event.node))).toEqual(new Set(table.map((row) => row.node)));
    expect(new Set(live.events.map(keyOf)).size).toBe(live.events.length); // none twice

    // after=0 replays both nodes' stored events (paged through the cluster reads), then goes live, none twice.
    const replay = await openWatch(defer, n1.base, "?after=0");
    const replayed = await until(
      () => {
        const keys = new Set(replay.events.map(keyOf));
        return live.events.every((event) => keys.has(keyOf(event))) ? replay.events : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(new Set(replayed.map((event) => event.node))).toEqual(new Set(["n1", "n2"]));
    expect(new Set(replayed.map(keyOf)).size).toBe(replayed.length);
    expect(replayed.filter(of(onN2.agent, onN2.instanceKey)).every((event) => event.node === "n2")).toBe(true);

    // `goondan watch` pointed at n1 prints n2's worker events with the node; a job for it is sent again until the
    // watch (a fresh Bun process, started meanwhile) has connected and printed one.
    const cli = Bun.spawn(
      [
        process.execPath,
        GOONDAN_BIN,
        "watch",
        "--port",
        new URL(n1.base).port,
        "--agent",
        "worker",
        "--instance",
        onN2.instanceKey,
      ],
      { stdout: "pipe", stderr: "ignore", stdin: "ignore" },
    );
    defer(killChild(cli));
    let printed = "";
    void (async () => {
      for await (const chunk of cli.stdout) printed += new TextDecoder().decode(chunk);
    })();
    const job = Number(onN2.instanceKey.slice(2));
    const line = await until(
      async () => {
        const found = printed
          .split("\n")
          .find((text) => text.includes(` n2 worker/${onN2.instanceKey} turn.completed`));
        if (found === undefined) await ask(n1.base, { input: `job-${job}`, instanceKey: `c-${job}` });
        return found;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(line).toContain(`n2 worker/${onN2.instanceKey}`);
    expect(n2.proc.exitCode).toBeNull();
  }, 240_000);
});
