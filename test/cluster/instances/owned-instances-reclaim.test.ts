/**
 * OwnedInstances after a lost lease, with a fake keeper, intake and host: a lease lost for want of NATS is
 * remembered (with the state log's settled sequence, read once the child stopped) and claimed back with it; one
 * another node holds by then is dropped; one taken by another node is never remembered.
 */
import { afterEach, describe, expect, it } from "bun:test";
import type { IntakeDelivery } from "../../../src/cluster/intake/instance-intake.ts";
import type { ClaimOutcome } from "../../../src/cluster/lease/lease-table.ts";
import type { OwnedInstances } from "../../../src/cluster/instances/owned-instances.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import type { TurnOutcome } from "../../../src/protocol/turn-outcome.ts";
import { until } from "../../helpers/goondan-process.ts";
import { fakeKeeper, fakeOwnedInstances } from "./fake-owner-parts.ts";

const KEY = "worker.w-0";
const running: OwnedInstances[] = [];
afterEach(() => {
  for (const owned of running.splice(0)) owned.stop();
});

/** A delivery of `event` whose acks are counted. */
function delivery(event: AgentEvent, acks: string[]): IntakeDelivery {
  return {
    event,
    attempt: 1,
    sequence: 1,
    ack: async () => void acks.push(event.id),
    working: () => undefined,
    retry: () => undefined,
  };
}

function setup(options: { acceptHere?: (event: AgentEvent) => Promise<{ outcome?: TurnOutcome }> } = {}) {
  const deliveries: IntakeDelivery[] = [];
  const claims: ClaimOutcome[] = [];
  const taken: (number | undefined)[] = [];
  const released: string[] = [];
  let sequence: number | undefined = 41;
  const keeper = fakeKeeper({ owner: "n1", claims });
  const owned = fakeOwnedInstances({
    node: "n1",
    deliveries,
    keeper,
    takeState: async (_agent, _instanceKey, _lease, resumeAfter) => (taken.push(resumeAfter), true),
    settledState: () => sequence,
    dropState: () => (sequence = undefined),
  });
  owned.attach({
    acceptHere: options.acceptHere ?? (async () => ({})),
    release: async (_agent, instanceKey) => void released.push(instanceKey),
  });
  running.push(owned);
  return { owned, claims, taken, released, deliveries };
}

describe("OwnedInstances after a lost lease", () => {
  it("remembers an instance lost for want of NATS, with its settled state sequence, and claims it back with it", async () => {
    const { owned, taken, released } = setup();
    expect(await owned.claim("worker", "w-0")).toBe(true);
    owned.lost(KEY, "unrenewed");
    expect(owned.owns(KEY)).toBe(false);
    await until(() => owned.remembers(KEY));
    expect(released).toEqual(["w-0"]);
    expect(owned.awaiting).toBe(1);

    expect(await owned.reclaim()).toBe(1);
    expect(taken).toEqual([undefined, 41]);
    expect(owned.owns(KEY)).toBe(true);
    expect(owned.awaiting).toBe(0);
  });

  it("keeps remembering while its own stale lease still holds the key, and drops it once another node holds it", async () => {
    const { owned, claims } = setup();
    await owned.claim("worker", "w-0");
    owned.lost(KEY, "expired");
    await until(() => owned.remembers(KEY));
    const holder = (owner: string): ClaimOutcome => ({
      status: "held",
      holder: { key: KEY, owner, revision: 2, writtenAt: 0, data: {} },
    });

    claims.push(holder("n1"));
    expect(await owned.reclaim()).toBe(0);
    expect(owned.remembers(KEY)).toBe(true);
    claims.push(holder("n2"));
    expect(await owned.reclaim()).toBe(0);
    expect(owned.remembers(KEY)).toBe(false);
  });

  it("does not remember an instance another node took", async () => {
    const { owned, released } = setup();
    await owned.claim("worker", "w-0");
    owned.lost(KEY, "taken");
    await until(() => released.length === 1);
    await Bun.sleep(10);
    expect(owned.remembers(KEY)).toBe(false);
    expect(owned.awaiting).toBe(0);
  });

  it("keeps the new delivery of an event in flight when the write of its first delivery, from before the loss, fails late", async () => {
    const event = { id: "evt_1", agent: "worker", instanceKey: "w-0" } as AgentEvent;
    const acks: string[] = [];
    let failFirst!: (error: Error) => void;
    let calls = 0;
    const { owned, deliveries } = setup({
      acceptHere: () => (++calls === 1 ? new Promise((_resolve, reject) => (failFirst = reject)) : Promise.resolve({})),
    });
    deliveries.push(delivery(event, acks));
    await owned.claim("worker", "w-0");
    await until(() => calls === 1);
    owned.lost(KEY, "unrenewed");
    await until(() => owned.remembers(KEY));
    await owned.reclaim();
    deliveries.push(delivery(event, acks));
    await until(() => calls === 2);

    failFirst(new Error("writing the state log: timeout"));
    await Bun.sleep(10);
    expect(owned.from(event)).toBe(false);
    owned.answered(event, { status: "ok" } as TurnOutcome);
    await until(() => acks.length === 1);
    expect(acks).toEqual(["evt_1"]);
  });
});
