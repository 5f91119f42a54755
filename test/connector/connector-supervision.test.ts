import { describe, expect, it } from "bun:test";
import {
  ConnectorSupervisor,
  type ConnectorIngest,
  type ConnectorIngestRequest,
  type ConnectorRunSpec,
} from "../../src/connector/host/connector-supervisor.ts";
import type { ParentToChild } from "../../src/protocol/ipc-messages.ts";
import { FakeSpawner, type FakeChild } from "../helpers/fake-spawner.ts";
import { ManualClock } from "../helpers/manual-clock.ts";
import { outcome } from "../helpers/outcomes.ts";

const spec = (overrides: Partial<ConnectorRunSpec> = {}): ConnectorRunSpec => ({
  connection: "hooks",
  connector: "webhook",
  entry: "/base/connectors/webhook.ts",
  config: { port: 9000 },
  secrets: { SIGNING_SECRET: "s3cret" },
  rules: [],
  entryAgent: "front",
  swarmInstanceKey: "team",
  stdin: "ignore",
  ...overrides,
});

function setup(options: { ingest?: ConnectorIngest } = {}) {
  const spawner = new FakeSpawner();
  const clock = new ManualClock();
  const ingested: ConnectorIngestRequest[] = [];
  const supervisor = new ConnectorSupervisor({
    spawner,
    clock,
    stableAfterMs: 1000,
    policy: () => ({ maxConsecutiveCrashes: 2, initialBackoffMs: 100, maxBackoffMs: 200 }),
    ingest:
      options.ingest ??
      (async (request) => {
        ingested.push(request);
        return {
          eventId: `evt_${ingested.length}`,
          reply: Promise.resolve(outcome({ eventId: `evt_${ingested.length}`, response: "pong" })),
        };
      }),
  });
  return { spawner, clock, supervisor, ingested };
}

const sentOf = <T extends keyof ParentToChild>(child: FakeChild, type: T): ParentToChild[T][] =>
  child.sent.filter((message) => message.type === type).map((message) => message.payload as ParentToChild[T]);
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("ConnectorSupervisor", () => {
  it("starts the child with the entry, config and secrets over IPC and the stdin it asks for", async () => {
    const { spawner, supervisor } = setup();
    await supervisor.start(spec({ stdin: "inherit" }));
    const child = spawner.latest("connector:hooks");
    expect(child.request).toMatchObject({ argv: ["--connection", "hooks"], stdin: "inherit" });
    expect(sentOf(child, "connector_start")).toEqual([
      {
        connector: "webhook",
        connection: "hooks",
        entry: "/base/connectors/webhook.ts",
        config: { port: 9000 },
        secrets: { SIGNING_SECRET: "s3cret" },
      },
    ]);
    expect(child.request.argv.join(" ")).not.toContain("s3cret");
  });

  it("restarts a crashed connector at once up to maxConsecutiveCrashes, then backs off doubling to the cap", async () => {
    const { spawner, clock, supervisor } = setup();
    await supervisor.start(spec());
    spawner.latest("connector:hooks").crash();
    spawner.latest("connector:hooks").crash();
    expect(spawner.of("connector:hooks")).toHaveLength(3);
    spawner.latest("connector:hooks").crash();
    expect(spawner.of("connector:hooks")).toHaveLength(3);
    expect(supervisor.list()[0]).toMatchObject({ status: "crashLoopBackOff", consecutiveCrashes: 3 });
    expect(clock.pendingDelays()).toEqual([100]);
    clock.advance(100);
    expect(spawner.of("connector:hooks")).toHaveLength(4);
    spawner.latest("connector:hooks").crash();
    expect(clock.pendingDelays()).toEqual([200]);
    clock.advance(200);
    spawner.latest("connector:hooks").crash();
    expect(clock.pendingDelays()).toEqual([200]);
  });

  it("resets the crash count once a connector has stayed up stableAfterMs", async () => {
    const { spawner, clock, supervisor } = setup();
    await supervisor.start(spec());
    spawner.latest("connector:hooks").crash();
    spawner.latest("connector:hooks").emit("connector_ready", { pid: 1, connection: "hooks" });
    expect(supervisor.list()[0]).toMatchObject({ status: "running", consecutiveCrashes: 1 });
    clock.advance(1000);
    expect(supervisor.list()[0]?.consecutiveCrashes).toBe(0);
  });

  it("routes an emitted event, acks it with the eventId and sends the turn's reply when asked", async () => {
    const { spawner, supervisor, ingested } = setup();
    await supervisor.start(
      spec({
        rules: [{ match: { event: "ping" }, route: { agentRef: { kind: "Agent", name: "ops" }, instanceKey: "desk" } }],
      }),
    );
    const child = spawner.latest("connector:hooks");
    child.emit("connector_event", {
      requestId: "c1",
      event: { name: "ping", message: { type: "text", text: "are you there" }, properties: {} },
      wantsReply: true,
    });
    await flush();
    await flush();
    expect(ingested).toEqual([
      {
        connection: "hooks",
        agent: "ops",
        instanceKey: "desk",
        input: "are you there",
        type: "connector.ping",
        metadata: {
          connector: "webhook",
          connection: "hooks",
          event: "ping",
          properties: {},
          message: { type: "text", text: "are you there" },
        },
        wantsReply: true,
      },
    ]);
    expect(sentOf(child, "connector_ack")).toEqual([{ requestId: "c1", accepted: true, eventId: "evt_1" }]);
    expect(sentOf(child, "connector_reply")).toEqual([
      { requestId: "c1", ...outcome({ eventId: "evt_1", response: "pong" }) },
    ]);
  });

  it("refuses a malformed event, an unrouted one, and one the orchestrator rejects, with their codes", async () => {
    const { spawner, supervisor } = setup({
      ingest: async () => {
        throw Object.assign(new Error("stopping"), { code: "E_ORCHESTRATOR_STOPPING" });
      },
    });
    await supervisor.start(spec({ rules: [{ match: { event: "ping" }, route: {} }] }));
    const child = spawner.latest("connector:hooks");
    child.emit("connector_event", { requestId: "a", event: { message: "no name" }, wantsReply: false });
    child.emit("connector_event", {
      requestId: "b",
      event: { name: "pong", message: "x", properties: {} },
      wantsReply: false,
    });
    child.emit("connector_event", {
      requestId: "c",
      event: { name: "ping", message: "x", properties: {} },
      wantsReply: false,
    });
    await flush();
    expect(sentOf(child, "connector_ack").map((ack) => [ack.requestId, ack.accepted, ack.error?.code])).toEqual([
      ["a", false, "E_CONNECTOR_EVENT_INVALID"],
      ["b", false, "E_CONNECTOR_NO_ROUTE"],
      ["c", false, "E_ORCHESTRATOR_STOPPING"],
    ]);
  });

  it("stops by asking first and killing after the grace period, and never restarts a stopped connector", async () => {
    const { spawner, clock, supervisor } = setup();
    await supervisor.start(spec());
    const child = spawner.latest("connector:hooks");
    const stopped = supervisor.stop("hooks", { gracePeriodMs: 500 });
    expect(sentOf(child, "shutdown")).toEqual([{ gracePeriodMs: 500, reason: "stop" }]);
    clock.advance(500);
    await stopped;
    expect(child.kills).toEqual(["SIGKILL"]);
    expect(spawner.of("connector:hooks")).toHaveLength(1);
    expect(supervisor.list()).toEqual([]);
  });

  it("cancels a pending backoff restart when stopped", async () => {
    const { spawner, clock, supervisor } = setup();
    await supervisor.start(spec());
    for (let crash = 0; crash < 3; crash++) spawner.latest("connector:hooks").crash();
    expect(clock.pendingDelays()).toEqual([100]);
    await supervisor.stop("hooks", { gracePeriodMs: 500 });
    clock.advance(1000);
    expect(spawner.of("connector:hooks")).toHaveLength(3);
  });

  it("re-routes a running connector in place without restarting it", async () => {
    const { spawner, supervisor, ingested } = setup();
    await supervisor.start(spec());
    supervisor.updateRouting({
      connection: "hooks",
      rules: [{ match: {}, route: { agentRef: { kind: "Agent", name: "ops" } } }],
      entryAgent: "front",
      swarmInstanceKey: "team",
    });
    spawner.latest("connector:hooks").emit("connector_event", {
      requestId: "c1",
      event: { name: "ping", message: "x", properties: {} },
      wantsReply: false,
    });
    await flush();
    expect(ingested[0]?.agent).toBe("ops");
    expect(spawner.of("connector:hooks")).toHaveLength(1);
  });
});
