/**
 * A child runs an unsynced step's calls without waiting for the step's commit (run-step.ts): when the store refuses
 * that commit, what the child asks of the orchestrator after it (an `agents__request`) is refused with
 * E_STORE_UNAVAILABLE instead of run, so nothing is delegated from a step the store lacks. Another child of the same
 * instance (its restart) is not held to it.
 */
import { describe, expect, it } from "bun:test";
import type { InstanceParts } from "../../src/orchestrator/instances/on-child-message.ts";
import { onChildMessage } from "../../src/orchestrator/instances/on-child-message.ts";
import { StoreFaults } from "../../src/orchestrator/instances/store-faults.ts";
import { ORCHESTRATOR, type ChildMessage } from "../../src/protocol/ipc-messages.ts";
import { SystemError } from "../../src/shared/errors.ts";
import type { ChildProcess } from "../../src/supervision/child-process.ts";

function world(refuse: boolean) {
  const ran: string[] = [];
  const parts = {
    instance: { lastActiveAt: 0 },
    options: {
      clock: { now: () => 1 },
      hooks: { runtimeCall: (_instance: unknown, call: { callId: string }) => void ran.push(call.callId) },
      store: {
        ordered: true,
        commit: () =>
          refuse ? Promise.reject(new SystemError("E_STORE_UNAVAILABLE", "disk full")) : Promise.resolve(),
      },
    },
    ref: { swarm: "s", agent: "a", instanceKey: "k" },
    events: { markApplied: () => undefined },
    storeFaults: new StoreFaults(),
  } as unknown as InstanceParts;
  const child = () => {
    const sent: { type: string; payload: unknown }[] = [];
    const handle = { send: (type: string, payload: unknown) => sent.push({ type, payload }) > 0 };
    return { handle: handle as unknown as ChildProcess, sent };
  };
  const from = (type: string, payload: unknown) =>
    ({ type, from: "a/k", to: ORCHESTRATOR, payload }) as unknown as ChildMessage;
  const call = (id: string) => from("runtime_call", { callId: id, method: "request", args: {}, callChain: [] });
  /** The child commits an unsynced step and, once the store answered, makes call `id`. */
  const stepThenCall = async (handle: ChildProcess, id: string) => {
    onChildMessage(parts, handle, from("commit", { seq: 1, changes: [], sync: false }));
    await Bun.sleep(0);
    onChildMessage(parts, handle, call(id));
  };
  return { parts, ran, child, call, stepThenCall };
}

describe("calls after a refused step", () => {
  it("are refused with E_STORE_UNAVAILABLE and never run; a restarted child's calls run", async () => {
    const { parts, ran, child, call, stepThenCall } = world(true);
    const first = child();
    await stepThenCall(first.handle, "c1");
    expect(ran).toEqual([]);
    expect(first.sent.map((message) => message.type)).toEqual(["committed", "runtime_result"]);
    expect(first.sent[1]?.payload).toMatchObject({ callId: "c1", ok: false, error: { code: "E_STORE_UNAVAILABLE" } });
    const second = child();
    onChildMessage(parts, second.handle, call("c2"));
    expect(ran).toEqual(["c2"]);
  });

  it("run as usual after a stored step", async () => {
    const { ran, child, stepThenCall } = world(false);
    const only = child();
    await stepThenCall(only.handle, "c1");
    expect(ran).toEqual(["c1"]);
    expect(only.sent.map((message) => message.type)).toEqual(["committed"]);
  });
});
