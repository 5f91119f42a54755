/**
 * The heartbeat watchdog: a child whose turn stays silent (no heartbeat, no message) for the Swarm's
 * `lifecycle.heartbeatTimeoutSeconds` has a blocked event loop; it is killed and handled as a crash, so its
 * event is redelivered and, if it blocks every time, given up with E_AGENT_CRASHED. Idle children are not watched.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { removeRoots, setup } from "./routing/routing-harness.ts";

afterEach(removeRoots);

const policy = { lifecycle: { heartbeatTimeoutSeconds: 5 } };

describe("the heartbeat watchdog", () => {
  it("kills a child silent for the timeout during its turn and redelivers the event to the next one", async () => {
    const s = setup({ policy });
    const submitted = s.orchestrator.submit({ input: "block" });
    const first = s.spawner.latest("a");
    first.ready();
    s.clock.advance(4_999);
    expect(first.kills).toEqual([]);
    s.clock.advance(1);
    expect(first.kills).toEqual(["SIGKILL"]);
    const second = s.spawner.latest("a");
    expect(second).not.toBe(first);
    second.ready();
    expect(second.events()).toEqual([
      expect.objectContaining({ attempt: 2, event: expect.objectContaining({ id: submitted.eventId }) }),
    ]);
    second.reply({ response: "done the second time" });
    expect(await submitted.outcome).toMatchObject({ status: "ok", response: "done the second time" });
  });

  it("keeps a child whose heartbeats keep coming, however long its turn", () => {
    const s = setup({ policy });
    s.orchestrator.submit({ input: "long turn" });
    const child = s.spawner.latest("a");
    child.ready();
    for (let second = 0; second < 60; second++) {
      s.clock.advance(1_000);
      child.emit("heartbeat", {});
    }
    expect(child.kills).toEqual([]);
    expect(s.orchestrator.processes()[0]?.status).toBe("processing");
  });

  it("does not watch an idle child, nor the next turn's clock from the last one", () => {
    const s = setup({ policy });
    s.orchestrator.submit({ input: "quick" });
    const child = s.spawner.latest("a");
    child.ready();
    child.reply();
    s.clock.advance(60_000);
    expect(child.kills).toEqual([]);
    s.orchestrator.submit({ input: "again" });
    s.clock.advance(4_000);
    expect(child.kills).toEqual([]);
    s.clock.advance(1_000);
    expect(child.kills).toEqual(["SIGKILL"]);
  });

  it("gives the event up with E_AGENT_CRASHED when it blocks the child every time", async () => {
    const s = setup({ policy: { ...policy, restart: { maxConsecutiveCrashes: 2 } } });
    const submitted = s.orchestrator.submit({ input: "always blocks" });
    s.spawner.latest("a").ready();
    s.clock.advance(5_000);
    s.spawner.latest("a").ready();
    s.clock.advance(5_000);
    expect(await submitted.outcome).toMatchObject({ status: "error", error: { code: "E_AGENT_CRASHED" } });
    expect(
      s.spawner
        .of("a")
        .slice(0, 2)
        .map((child) => child.kills),
    ).toEqual([["SIGKILL"], ["SIGKILL"]]);
  });
});
