/**
 * OwnedInstances over fakes, for its unit tests: an intake whose instance reader hands out the given deliveries in
 * order (then waits, empty), a lease keeper that grants every claim as `owner` unless told otherwise, and the
 * instance table built on them with this suite's defaults (keys `<agent>.<key>`, a 3 s ack wait, a silent logger).
 */
import type { EventIntake } from "../../../src/cluster/intake/event-intake.ts";
import type { IntakeDelivery } from "../../../src/cluster/intake/instance-intake.ts";
import type { LeaseKeeper } from "../../../src/cluster/lease/lease-keeper.ts";
import type { ClaimOutcome } from "../../../src/cluster/lease/lease-table.ts";
import { OwnedInstances, type OwnedInstancesOptions } from "../../../src/cluster/instances/owned-instances.ts";
import { silentLogger } from "../../../src/shared/logger.ts";

export function fakeIntake(deliveries: IntakeDelivery[]): EventIntake {
  return {
    resetStale: async () => false,
    instance: async () => ({ next: async () => deliveries.shift() ?? (await Bun.sleep(20), undefined) }),
  } as unknown as EventIntake;
}

/** Grants each claim as `owner` (or answers the next of `claims`); `released` hears each release. */
export function fakeKeeper(options: {
  owner: string;
  claims?: ClaimOutcome[];
  released?: (key: string) => void;
}): LeaseKeeper {
  return {
    claim: async (key: string) =>
      options.claims?.shift() ?? { status: "claimed", lease: { key, owner: options.owner, revision: 1 } },
    release: async (key: string) => options.released?.(key),
  } as unknown as LeaseKeeper;
}

export function fakeOwnedInstances(
  options: { node: string; deliveries: IntakeDelivery[]; keeper: LeaseKeeper } & Partial<
    Pick<OwnedInstancesOptions, "takeState" | "settledState" | "dropState">
  >,
): OwnedInstances {
  return new OwnedInstances({
    node: options.node,
    intake: fakeIntake(options.deliveries),
    keeper: () => options.keeper,
    leaseKey: (agent, instanceKey) => `${agent}.${instanceKey}`,
    takeState: options.takeState ?? (async () => true),
    settledState: options.settledState ?? (() => undefined),
    dropState: options.dropState ?? (() => undefined),
    ackWaitMs: 3000,
    sendBack: () => undefined,
    logger: silentLogger(),
  });
}
