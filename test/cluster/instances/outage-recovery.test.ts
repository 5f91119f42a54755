/**
 * OutageRecovery with a fake connection, fake owned instances and membership, and a manual clock: what a node does
 * when its connection to NATS goes and comes back.
 */
import { describe, expect, it } from "bun:test";
import type { ClusterConnectionState } from "../../../src/cluster/nats/connection.ts";
import { OutageRecovery } from "../../../src/cluster/instances/outage-recovery.ts";
import { silentLogger } from "../../../src/shared/logger.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";

const GRACE_MS = 3000;

function fakes(options: { awaiting?: number; rejoins?: boolean } = {}) {
  const listeners = new Set<(state: ClusterConnectionState) => void>();
  const calls: string[] = [];
  const connection = {
    state: "connected" as ClusterConnectionState,
    onState: (listener: (state: ClusterConnectionState) => void) => (
      listeners.add(listener), () => void listeners.delete(listener)
    ),
  };
  const owned = {
    awaiting: options.awaiting ?? 0,
    reclaim: async () => {
      calls.push("reclaim");
      const reclaimed = owned.awaiting;
      owned.awaiting = 0;
      return reclaimed;
    },
  };
  const membership = {
    joined: true,
    rejoin: async () => {
      calls.push("rejoin");
      membership.joined = options.rejoins ?? true;
      return membership.joined;
    },
  };
  const clock = new ManualClock();
  const set = (state: ClusterConnectionState) => {
    connection.state = state;
    for (const listener of listeners) listener(state);
  };
  const recovery = new OutageRecovery({
    connection,
    owned,
    membership,
    graceMs: GRACE_MS,
    logger: silentLogger(),
    clock,
  });
  return { recovery, connection, owned, membership, clock, set, calls };
}

describe("OutageRecovery", () => {
  it("does not defer other nodes' orphans on a node that never lost NATS", () => {
    const { recovery } = fakes();
    expect(recovery.deferring(["n1", "n2"], "n1")).toBe(false);
  });

  it("defers other nodes' orphans for the grace period after its own reconnection, then stops deferring", () => {
    const { recovery, set, clock } = fakes();
    expect(recovery.deferring(["n1"], "n1")).toBe(false);
    set("reconnecting");
    clock.advance(10_000);
    set("connected");
    expect(recovery.deferring([], "n1")).toBe(true);
    clock.advance(GRACE_MS - 1);
    expect(recovery.deferring([], "n1")).toBe(true);
    clock.advance(1);
    expect(recovery.deferring([], "n1")).toBe(false);
  });

  it("defers beyond the grace while a node that was a member before NATS went has not rejoined, up to three graces", () => {
    const { recovery, set, clock } = fakes();
    expect(recovery.deferring(["n1", "n2", "n3"], "n1")).toBe(false);
    set("reconnecting");
    clock.advance(10_000);
    set("connected");
    clock.advance(GRACE_MS);
    expect(recovery.deferring(["n1", "n2"], "n1")).toBe(true);
    expect(recovery.deferring(["n1", "n2", "n3"], "n1")).toBe(false);
    clock.advance(2 * GRACE_MS - 1);
    expect(recovery.deferring(["n1", "n2"], "n1")).toBe(true);
    clock.advance(1);
    expect(recovery.deferring(["n1", "n2"], "n1")).toBe(false);
  });

  it("claims back its remembered instances first, then its membership, when NATS returns", async () => {
    const { recovery, set, owned, membership, calls } = fakes({ awaiting: 3 });
    set("reconnecting");
    membership.joined = false;
    set("connected");
    await recovery.recover();
    expect(calls).toEqual(["reclaim", "rejoin"]);
    expect(owned.awaiting).toBe(0);
    expect(membership.joined).toBe(true);
  });

  it("tries nothing while disconnected", async () => {
    const { recovery, set, membership, calls } = fakes({ awaiting: 2 });
    set("reconnecting");
    membership.joined = false;
    await recovery.recover();
    expect(calls).toEqual([]);
  });

  it("says since when it is disconnected and what it waits to claim back", () => {
    const { recovery, set, clock, membership } = fakes({ awaiting: 2 });
    expect(recovery.status("n1", 4)).toEqual({
      node: "n1",
      connection: "connected",
      member: true,
      instances: 4,
      awaitingReclaim: 2,
    });
    const since = clock.now();
    set("reconnecting");
    membership.joined = false;
    clock.advance(5000);
    expect(recovery.status("n1", 0)).toEqual({
      node: "n1",
      connection: "reconnecting",
      disconnectedSince: new Date(since).toISOString(),
      member: false,
      instances: 0,
      awaitingReclaim: 2,
    });
  });

  it("keeps asking for its name while it is still held (its own last heartbeat not lapsed yet)", async () => {
    const { recovery, set, membership, calls } = fakes({ rejoins: false });
    set("reconnecting");
    membership.joined = false;
    set("connected");
    await recovery.recover();
    await recovery.recover();
    expect(calls).toEqual(["rejoin", "rejoin"]);
    expect(recovery.status("n1", 0).member).toBe(false);
  });
});
