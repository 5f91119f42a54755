/**
 * OwnedInstances.handOver (a draining node gives its instances up), with a fake keeper, intake and host: the running
 * turn is answered before the instance stops and its lease is released; a claim meanwhile is refused; a turn that
 * outlasts the grace is stopped anyway.
 */
import { afterEach, describe, expect, it } from "bun:test";
import type { IntakeDelivery } from "../../../src/cluster/intake/instance-intake.ts";
import type { OwnedInstances } from "../../../src/cluster/instances/owned-instances.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";
import type { TurnOutcome } from "../../../src/protocol/turn-outcome.ts";
import { until } from "../../helpers/goondan-process.ts";
import { fakeKeeper, fakeOwnedInstances } from "./fake-owner-parts.ts";

const running: OwnedInstances[] = [];
afterEach(() => {
  for (const owned of running.splice(0)) owned.stop();
});

const event = { id: "evt_1", agent: "worker", instanceKey: "w-0", input: "job", type: "agent.request" } as AgentEvent;
const outcome = {
  status: "ok",
  agent: "worker",
  instanceKey: "w-0",
  eventId: "evt_1",
  response: "done",
} as TurnOutcome;

function setup(options: { stopMs?: number } = {}) {
  const log: string[] = [];
  const deliveries: IntakeDelivery[] = [
    {
      event,
      attempt: 1,
      sequence: 1,
      ack: async () => void log.push("acked"),
      working: () => undefined,
      retry: () => void log.push("retried"),
    },
  ];
  const keeper = fakeKeeper({ owner: "n3", released: (key) => void log.push(`lease released ${key}`) });
  const owned = fakeOwnedInstances({ node: "n3", deliveries, keeper, dropState: () => void log.push("state dropped") });
  owned.attach({
    acceptHere: async () => (log.push("turn started"), {}),
    release: async (_agent, instanceKey) => {
      await Bun.sleep(options.stopMs ?? 0);
      log.push(`stopped ${instanceKey}`);
    },
  });
  running.push(owned);
  return { owned, log };
}

describe("OwnedInstances.handOver", () => {
  it("lets the running turn be answered, then stops the instance and releases its lease; a claim meanwhile is refused", async () => {
    const { owned, log } = setup();
    expect(await owned.claim("worker", "w-0")).toBe(true);
    await until(() => log.includes("turn started"));
    const handed = owned.handOver("worker", "w-0", "node drains", 10_000);
    expect(owned.list()).toEqual([]); // no longer offered for hand-over, not yet gone
    expect(await owned.claim("worker", "w-0")).toBe(true); // still its own until the turn is answered
    await Bun.sleep(100);
    expect(log).toEqual(["turn started"]);
    owned.answered(event, outcome);
    expect(await handed).toBe(true);
    expect(log).toEqual(["turn started", "acked", "stopped w-0", "state dropped", "lease released worker.w-0"]);
    expect(owned.owns("worker.w-0")).toBe(false);
    expect(await owned.handOver("worker", "w-0", "again", 10)).toBe(false);
  });

  it("refuses a claim while the hand-over runs, and stops a turn that outlasts the grace", async () => {
    const { owned, log } = setup({ stopMs: 300 });
    await owned.claim("worker", "w-0");
    await until(() => log.includes("turn started"));
    const started = Date.now();
    const handed = owned.handOver("worker", "w-0", "node drains", 300);
    await until(() => !owned.owns("worker.w-0")); // its child is stopping
    expect(await owned.claim("worker", "w-0")).toBe(false);
    expect(await handed).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(log).toContain("stopped w-0");
    expect(log).not.toContain("acked"); // its event goes to the next owner
  });
});
