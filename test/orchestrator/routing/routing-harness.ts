/**
 * The shared harness of the orchestrator routing tests: an Orchestrator over a fake spawner and a manual
 * clock in a temporary state root, a child's runtime call awaited to its runtime_result, the
 * delegate_results a child received, and a caller instance busy in a turn.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMessage } from "../../../src/agent/conversation/message-factory.ts";
import { Orchestrator, type RestartRequester } from "../../../src/orchestrator/orchestrator.ts";
import type { ChildToParent, ParentMessage } from "../../../src/protocol/ipc-messages.ts";
import { FakeSpawner, type FakeChild } from "../../helpers/fake-spawner.ts";
import { ManualClock } from "../../helpers/manual-clock.ts";
import { testBundle, type TestBundleOptions } from "../../fixtures/orchestrator/test-bundle.ts";

/** Directories to remove after each test (`removeRoots` in afterEach). */
export const roots: string[] = [];

export function removeRoots(): void {
  stores.clear();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
}

export type RoutingSetup = ReturnType<typeof setup>;

export function setup(options: Partial<TestBundleOptions> & { restarts?: RestartRequester; stateRoot?: string } = {}) {
  const stateRoot = options.stateRoot ?? mkdtempSync(join(tmpdir(), "goondan-route-"));
  if (!options.stateRoot) roots.push(stateRoot);
  const spawner = new FakeSpawner();
  const clock = new ManualClock();
  const orchestrator = new Orchestrator({
    bundle: testBundle({ agents: ["a", "b", "c"], ...options }),
    stateRoot,
    spawner,
    clock,
    ...(options.restarts ? { restarts: options.restarts } : {}),
  });
  stores.add(orchestrator.store as { settled?: () => Promise<void> });
  return { orchestrator, spawner, clock, stateRoot };
}

/** The stores of the orchestrators set up so far, so `tick` can wait for their writes to be synced. */
const stores = new Set<{ settled?: () => Promise<void> }>();

/** Lets queued work run: pending messages, and the syncs of everything written (which run off the event loop). */
export const tick = async () => {
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 5; i++) await Bun.sleep(0);
    await Promise.all([...stores].map((store) => store.settled?.()));
  }
};

let callSeq = 0;
/** The child makes a runtime call; returns its runtime_result once the orchestrator answered. */
export async function call(
  child: FakeChild,
  method: ChildToParent["runtime_call"]["method"],
  args: Record<string, unknown>,
  extra: Partial<ChildToParent["runtime_call"]> = {},
) {
  const callId = `call_${++callSeq}`;
  child.emit("runtime_call", { callId, method, args: args as never, callChain: [], ...extra });
  await tick();
  const find = () =>
    child.sent.find(
      (message): message is Extract<ParentMessage, { type: "runtime_result" }> =>
        message.type === "runtime_result" && message.payload.callId === callId,
    );
  // Calls that read the disk (restart validates the bundle) answer after real I/O.
  for (let waited = 0; !find() && waited < 5000; waited += 5) await Bun.sleep(5);
  const result = find();
  if (!result) throw new Error(`no runtime_result for ${method}`);
  return result.payload;
}

export const delegateResults = (child: FakeChild) =>
  child.sent.flatMap((message) => (message.type === "delegate_result" ? [message.payload] : []));

/** Starts instance a/test-swarm in the middle of a turn. */
export function busyCaller(setupResult: RoutingSetup, input = "go") {
  const submitted = setupResult.orchestrator.submit({ input, traceId: "trace-1" });
  const a = setupResult.spawner.latest("a");
  a.ready();
  return { a, submitted };
}

/** Gives an instance a stored conversation of one user message, as a committed turn would. */
export async function seedConversation(setupResult: RoutingSetup, agent: string, instanceKey: string): Promise<void> {
  const { orchestrator } = setupResult;
  const message = createMessage({
    id: `msg_${agent}_${instanceKey}`,
    data: { role: "user", content: "remember me" },
    source: { type: "user" },
    now: 0,
  });
  await orchestrator.store.commit(
    { swarm: orchestrator.swarm.instanceKey, agent, instanceKey },
    { changes: [{ type: "append", message }] },
  );
}

/** Whether the instance has a stored conversation. */
export async function hasConversation(setupResult: RoutingSetup, agent: string, instanceKey: string): Promise<boolean> {
  const { orchestrator } = setupResult;
  return (
    orchestrator.store.instanceState({ swarm: orchestrator.swarm.instanceKey, agent, instanceKey }).messages.length > 0
  );
}
