/**
 * Real `goondan run --cluster` nodes with a low compaction threshold (GOONDAN_CLUSTER_SNAPSHOT_RECORDS=4): a
 * coordinator whose model answers with every user message of its conversation, so an answer shows the whole
 * conversation the node holds. (1) An instance run long enough on n1 to be compacted, then n1 killed with SIGKILL:
 * n2 takes it over from the snapshot and answers with the whole conversation. (2) A `fresh` restart, asked of n2,
 * of an instance no node runs (n1, which ran it, stopped): cleared in its state log, so the next turn starts empty.
 */
import { describe, expect, it } from "bun:test";
import { clusterNames } from "../../src/cluster/nats/names.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { messageText, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { connectTest, natsAvailable } from "../helpers/nats.ts";
import { ask, clusterSwarm } from "./cluster-swarm.ts";

const defer = useCleanups();
const TTL_MS = 3000;

/** Every user message of the conversation, in order: what the instance remembers. */
const history = (request: LoopbackRequest) => ({
  text: request.body.messages
    .filter((message) => message.role === "user")
    .map(messageText)
    .join(","),
});
const jobs = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `job-${from + i}`);

describe.skipIf(!natsAvailable)("state log compaction with real cluster nodes", () => {
  it("a compacted instance taken over after its node was killed keeps its whole conversation", async () => {
    const cluster = await clusterSwarm(defer, {
      label: "compact-int",
      ttlMs: TTL_MS,
      respond: history,
      env: { GOONDAN_CLUSTER_SNAPSHOT_RECORDS: "4" },
    });
    const n1 = await cluster.startNode("n1");
    for (const job of jobs(0, 12))
      expect((await ask(n1.base, { input: job, instanceKey: "c-0" })).body.response).toBe(
        jobs(0, Number(job.slice(4)) + 1).join(","),
      );
    // Compacted: the log holds far fewer messages than the 24+ records written.
    const connection = await connectTest(defer, { node: "observer" });
    const names = clusterNames(cluster.swarm);
    const subject = names.stateSubject("coordinator", "c-0");
    const kept =
      (await connection.jsm.streams.info(names.stateStream, { subjects_filter: subject })).state.subjects?.[subject] ??
      0;
    expect(kept).toBeLessThan(12);

    const n2 = await cluster.startNode("n2");
    n1.proc.kill("SIGKILL");
    const answer = await ask(n2.base, { input: "job-12", instanceKey: "c-0", timeoutMs: 30_000 });
    expect(answer.status).toBe(200);
    expect(answer.body.response).toBe(jobs(0, 13).join(","));
    const replayed = n2.lines.find(
      (line) =>
        line.msg === "replayed an instance's state log" && line.agent === "coordinator" && line.instanceKey === "c-0",
    );
    expect(replayed).toMatchObject({ fromSnapshot: true });
    expect(replayed?.records as number).toBeLessThan(10);
  }, 120_000);

  it("a fresh restart of an instance no node runs clears it cluster-wide: the next node to run it starts empty", async () => {
    const cluster = await clusterSwarm(defer, { label: "fresh-int", ttlMs: TTL_MS, respond: history });
    const n1 = await cluster.startNode("n1");
    for (const job of jobs(0, 3)) await ask(n1.base, { input: job, instanceKey: "c-1" });
    const n2 = await cluster.startNode("n2");
    // n1 stops (releasing its leases): no node runs c-1, whose conversation is in its state log.
    n1.proc.kill("SIGTERM");
    await n1.proc.exited;

    const restart = await fetch(`${n2.base}/v1/restart`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent: "coordinator", instanceKey: "c-1", fresh: true }),
    });
    expect(restart.status).toBe(202);
    await until(
      () =>
        n2.lines.some(
          (line) =>
            line.msg === "cleared the conversation of an instance no node runs in its state log (fresh restart)" &&
            line.instanceKey === "c-1",
        ),
      { timeoutMs: 20_000 },
    );
    // n1 comes back with its old local copy; whichever node runs c-1 next replays the cleared log.
    const n1again = await cluster.startNode("n1");
    const answer = await ask(n1again.base, { input: "after", instanceKey: "c-1", timeoutMs: 30_000 });
    expect(answer.status).toBe(200);
    expect(answer.body.response).toBe("after");
  }, 120_000);
});
