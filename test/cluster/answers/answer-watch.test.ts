import { describe, expect, it } from "bun:test";
import { StorageType } from "@nats-io/jetstream";
import { AnswerWatch } from "../../../src/cluster/answers/answer-watch.ts";
import { clusterNames } from "../../../src/cluster/nats/names.ts";
import { InstanceStateLog } from "../../../src/store/nats/instance-state-log.ts";
import { LeaseTable, type Lease } from "../../../src/cluster/lease/lease-table.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import type { TurnOutcome } from "../../../src/protocol/turn-outcome.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import type { Store } from "../../../src/store/store.ts";
import { useCleanups } from "../../helpers/cleanups.ts";
import { connectTest, natsAvailable, removeSwarmAfter, testSwarm } from "../../helpers/nats.ts";

const defer = useCleanups();
/** take() replays into a local store; the log of a fresh instance has nothing to replay. */
const noLocal = { deleteInstance: async () => true } as unknown as Store;

const event = (id: string, agent = "worker", instanceKey = "w-1"): AgentEvent =>
  ({
    id,
    type: "agent.request",
    agent,
    instanceKey,
    input: "job",
    source: { kind: "agent", name: "coordinator" },
    callChain: [],
    metadata: {},
    createdAt: new Date(0).toISOString(),
  }) as unknown as AgentEvent;
const outcome = (eventId: string, status: TurnOutcome["status"] = "ok"): TurnOutcome => ({
  status,
  agent: "worker",
  instanceKey: "w-1",
  eventId,
  turnId: `turn_${eventId}`,
  response: `did ${eventId}`,
  finishReason: "stop",
});

async function setup() {
  const swarm = testSwarm("answerwatch");
  removeSwarmAfter(defer, swarm);
  const names = clusterNames(swarm);
  // The owner and the node that accepted the events, each with its own connection.
  const owner = await connectTest(defer);
  const origin = await connectTest(defer);
  const leases = await LeaseTable.open({ connection: owner, bucket: names.leaseBucket });
  const ref = { swarm, agent: "worker", instanceKey: "w-1" };
  const key = names.instanceLeaseKey(ref.agent, ref.instanceKey);
  const claim = async (who: string): Promise<Lease> => {
    const claimed = await leases.claim(key, who);
    if (claimed.status !== "claimed") throw new Error(`${who} could not claim`);
    return claimed.lease;
  };
  const log = await InstanceStateLog.open({ connection: owner, names });
  await log.take(ref, await claim("owner"), noLocal);
  const answers: Array<{ event: AgentEvent; outcome: TurnOutcome }> = [];
  const arrivals: Array<() => void> = [];
  const watch = new AnswerWatch({
    connection: origin,
    names,
    logger: silentLogger(),
    onAnswer: (answered, taken) => {
      answers.push({ event: answered, outcome: taken });
      arrivals.splice(0).forEach((arrived) => arrived());
    },
  });
  defer(() => watch.stop());
  /** Resolves once `count` answers arrived (5 s at most). */
  const answered = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${answers.length} answers, expected ${count}`)), 5000);
      const check = () => (answers.length >= count ? (clearTimeout(timer), resolve()) : arrivals.push(check));
      check();
    });
  /**
   * watch.expect, then a round trip on the watch's connection: the owner appends on a connection of its own, so without
   * it the server could store and republish the answer before it has the watch's subscription. (In a node the event is
   * published after expect on the watch's own connection, which orders the two.)
   */
  const awaitAnswerOf = async (awaited: AgentEvent) => {
    watch.expect(awaited);
    await origin.nc.flush();
  };
  return { names, owner, origin, leases, ref, key, claim, log, watch, answers, answered, awaitAnswerOf };
}

describe.skipIf(!natsAvailable)("AnswerWatch on the local NATS", () => {
  it("takes an awaited event's answer from the owner's state log once stored, and drops the owner's request bringing it again", async () => {
    const { ref, log, watch, answers, answered, awaitAnswerOf } = await setup();
    await awaitAnswerOf(event("evt_a"));
    // A step of the turn (no outcome) and an answer of an event nobody here waits on are not taken.
    await log.append(ref, { op: "commit", commit: {} });
    await log.append(ref, { op: "commit", commit: {}, outcome: outcome("evt_other") });
    await log.append(ref, { op: "commit", commit: {}, outcome: outcome("evt_a") });
    await answered(1);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.event.id).toBe("evt_a");
    expect(answers[0]?.outcome).toMatchObject({
      status: "ok",
      eventId: "evt_a",
      agent: "worker",
      instanceKey: "w-1",
      response: "did evt_a",
    });
    // The owner's request comes after: dropped. An answer only the owner's request brings is acted on.
    expect(watch.fromOwner("evt_a")).toBe(false);
    expect(watch.fromOwner("evt_other")).toBe(true);
  });

  it("wants the answer again of an event accepted again after its answer was taken (a resumed requester's request)", async () => {
    const { ref, log, watch, answered, awaitAnswerOf } = await setup();
    await awaitAnswerOf(event("evt_again"));
    await log.append(ref, { op: "commit", commit: {}, outcome: outcome("evt_again") });
    await answered(1);
    // Sent again from here: the owner answers it from its store, by its request alone, which must not be dropped.
    watch.expect(event("evt_again"));
    expect(watch.fromOwner("evt_again")).toBe(true);
  });

  it("waits past a turn stopped for approvals, and finds an answer inside a grouped message", async () => {
    const { ref, log, answers, answered, awaitAnswerOf } = await setup();
    await awaitAnswerOf(event("evt_b"));
    await awaitAnswerOf(event("evt_c"));
    await log.append(ref, {
      op: "commit",
      commit: {},
      outcome: { ...outcome("evt_b", "awaiting_approval"), approvalIds: ["apr_1"] },
    });
    // Made together while one is on its way: the second and third go out as one message.
    await Promise.all([
      log.append(ref, { op: "commit", commit: {} }),
      log.append(ref, { op: "commit", commit: {}, outcome: outcome("evt_b") }),
      log.append(ref, { op: "answer", eventId: "evt_c", outcome: outcome("evt_c", "error") }),
    ]);
    await answered(2);
    expect(answers.map((answer) => [answer.event.id, answer.outcome.status])).toEqual([
      ["evt_b", "ok"],
      ["evt_c", "error"],
    ]);
  });

  it("never takes an answer whose append a newer owner's fence refused", async () => {
    const { ref, leases, claim, log, watch, answers, answered, names, owner, awaitAnswerOf } = await setup();
    await awaitAnswerOf(event("evt_stale"));
    await awaitAnswerOf(event("evt_after"));
    await leases.release((await leases.holder(names.instanceLeaseKey(ref.agent, ref.instanceKey))) as Lease);
    const newer = await InstanceStateLog.open({ connection: owner, names });
    await newer.take(ref, await claim("newer"), noLocal);
    const refused = await log.append(ref, { op: "commit", commit: {}, outcome: outcome("evt_stale") }).then(
      () => "written",
      (error: { code?: string }) => error.code,
    );
    expect(refused).toBe("E_CLUSTER_FENCED");
    // Republished in the stream's order: once the newer owner's answer is here, the refused one would have been.
    await newer.append(ref, { op: "commit", commit: {}, outcome: outcome("evt_after") });
    await answered(1);
    expect(answers.map((answer) => answer.event.id)).toEqual(["evt_after"]);
    expect(watch.fromOwner("evt_stale")).toBe(true);
  });

  it("opens a state stream made before without republishing (a server that cannot add it leaves it so): answers then come by the owner's request", async () => {
    const swarm = testSwarm("answerwatch");
    removeSwarmAfter(defer, swarm);
    const names = clusterNames(swarm);
    const connection = await connectTest(defer);
    await connection.jsm.streams.add({
      name: names.stateStream,
      subjects: [names.stateSubjects],
      storage: StorageType.File,
    });
    await InstanceStateLog.open({ connection, names });
    const republish = (await connection.jsm.streams.info(names.stateStream)).config.republish;
    if (republish !== undefined)
      expect(republish).toMatchObject({ src: names.stateSubjects, dest: names.storedStateSubjects });
    const watch = new AnswerWatch({ connection, names, logger: silentLogger(), onAnswer: () => undefined });
    defer(() => watch.stop());
    watch.expect(event("evt_d"));
    expect(watch.fromOwner("evt_d")).toBe(true);
  });
});
