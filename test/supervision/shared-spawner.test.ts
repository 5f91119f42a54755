/**
 * The shared spawner on a manual clock, with fake host processes: placement (empty host first, a new host while
 * under maxProcesses, then the least loaded; sticky), messages routed by address both ways, an instance's `exited`,
 * a host's death ending every child it held, a forced kill asked of the host and escalated to the host's SIGKILL
 * when it does not answer, an empty host's idle exit, and a reload's new group retiring the old hosts.
 */
import { describe, expect, it } from "bun:test";
import { envelope, type ChildMessage, type ParentMessage } from "../../src/protocol/ipc-messages.ts";
import { createLogger } from "../../src/shared/logger.ts";
import type { ChildExit, ChildProcessHandle, SpawnRequest } from "../../src/supervision/process-spawner.ts";
import { sharedProcessSpawner } from "../../src/supervision/shared-spawner.ts";
import { ManualClock } from "../helpers/manual-clock.ts";

let nextPid = 70_000;

class FakeHost implements ChildProcessHandle {
  readonly pid = nextPid++;
  readonly sent: ParentMessage[] = [];
  readonly kills: string[] = [];
  private readonly listeners: ((message: ChildMessage) => void)[] = [];
  private readonly exits: ((exit: ChildExit) => void)[] = [];
  constructor(readonly request: SpawnRequest) {}
  send(message: ParentMessage): boolean {
    this.sent.push(message);
    return true;
  }
  onMessage(listener: (message: ChildMessage) => void): void {
    this.listeners.push(listener);
  }
  onExit(listener: (exit: ChildExit) => void): void {
    this.exits.push(listener);
  }
  kill(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): void {
    this.kills.push(signal);
  }
  /** A message from one of the instances it holds. */
  emit(message: ChildMessage): void {
    for (const listener of this.listeners) listener(message);
  }
  exit(exit: ChildExit): void {
    for (const listener of this.exits) listener(exit);
  }
  opened(): string[] {
    return this.sent.filter((message) => message.type === "open").map((message) => message.to);
  }
}

function setup() {
  const clock = new ManualClock();
  const hosts: FakeHost[] = [];
  const passedThrough: SpawnRequest[] = [];
  const spawner = sharedProcessSpawner({
    clock,
    logger: createLogger("test", { level: "silent" }),
    killGraceMs: 1000,
    spawner: {
      spawn(request) {
        if (request.argv[0] !== "--host") {
          passedThrough.push(request);
          return new FakeHost(request);
        }
        const host = new FakeHost(request);
        hosts.push(host);
        return host;
      },
    },
  });
  const request = (address: string, options: { group?: string; maxProcesses?: number; idleMs?: number } = {}) => ({
    address,
    argv: ["--agent", address.split("/")[0] as string, "--instance-key", address.split("/")[1] as string],
    env: { A: "1" },
    share: {
      group: options.group ?? "g1",
      label: address.split("/")[0] as string,
      hostArgv: ["--host", "--agent", address.split("/")[0] as string],
      maxProcesses: options.maxProcesses ?? 2,
      idleMs: options.idleMs ?? 5000,
    },
  });
  return { clock, hosts, passedThrough, spawner, request };
}

describe("the shared spawner", () => {
  it("places an instance on an empty host, then a new host under maxProcesses, then the least loaded", () => {
    const { hosts, spawner, request } = setup();
    const a = spawner.spawn(request("worker/a"));
    const b = spawner.spawn(request("worker/b"));
    const c = spawner.spawn(request("worker/c"));
    expect(hosts).toHaveLength(2);
    expect(hosts[0]?.request.env).toEqual({ A: "1" });
    expect(a.pid).toBe(hosts[0]?.pid as number);
    expect(b.pid).toBe(hosts[1]?.pid as number);
    expect(c.pid).toBe(hosts[0]?.pid as number);
    expect(hosts[0]?.opened()).toEqual(["worker/a", "worker/c"]);
    const open = hosts[0]?.sent[0];
    expect(open?.type === "open" ? open.payload.argv : []).toEqual(request("worker/a").argv);
    // b's host holds one instance; the next goes there.
    const d = spawner.spawn(request("worker/d"));
    expect(d.pid).toBe(hosts[1]?.pid as number);
    expect(spawner.hosts().map((host) => host.children.length)).toEqual([2, 2]);
  });

  it("routes messages by address both ways, and ends a child when its host says exited", () => {
    const { hosts, spawner, request } = setup();
    const a = spawner.spawn(request("worker/a"));
    const b = spawner.spawn(request("worker/b", { maxProcesses: 1 }));
    const heardA: string[] = [];
    const heardB: string[] = [];
    const exits: ChildExit[] = [];
    a.onMessage((message) => heardA.push(message.type));
    b.onMessage((message) => heardB.push(message.type));
    a.onExit((exit) => exits.push(exit));
    const host = hosts[0] as FakeHost;
    expect(hosts).toHaveLength(1);
    host.emit(envelope("heartbeat", "worker/b", "orchestrator", {}) as ChildMessage);
    host.emit(
      envelope("ready", "worker/a", "orchestrator", { pid: 1, agent: "worker", instanceKey: "a" }) as ChildMessage,
    );
    expect(heardA).toEqual(["ready"]);
    expect(heardB).toEqual(["heartbeat"]);
    expect(a.send(envelope("shutdown", "orchestrator", "worker/a", { gracePeriodMs: 10, reason: "idle" }))).toBe(true);
    host.emit(envelope("exited", "worker/a", "orchestrator", { code: 0, signal: null }) as ChildMessage);
    expect(exits).toEqual([{ code: 0, signal: null }]);
    expect(a.send(envelope("shutdown", "orchestrator", "worker/a", { gracePeriodMs: 10, reason: "again" }))).toBe(
      false,
    );
    expect(spawner.hosts()[0]?.children).toEqual(["worker/b"]);
  });

  it("ends every child a host held when the host process dies, and places the next start on a new host", () => {
    const { hosts, spawner, request } = setup();
    const exits: ChildExit[] = [];
    for (const key of ["a", "b"])
      spawner.spawn(request(`worker/${key}`, { maxProcesses: 1 })).onExit((exit) => exits.push(exit));
    (hosts[0] as FakeHost).exit({ code: null, signal: "SIGKILL" });
    expect(exits).toEqual([
      { code: null, signal: "SIGKILL" },
      { code: null, signal: "SIGKILL" },
    ]);
    const again = spawner.spawn(request("worker/a", { maxProcesses: 1 }));
    expect(hosts).toHaveLength(2);
    expect(again.pid).toBe(hosts[1]?.pid as number);
  });

  it("asks the host to drop a killed child, and kills the host when it does not answer in time", () => {
    const { clock, hosts, spawner, request } = setup();
    const a = spawner.spawn(request("worker/a", { maxProcesses: 1 }));
    const b = spawner.spawn(request("worker/b", { maxProcesses: 1 }));
    const host = hosts[0] as FakeHost;
    a.kill("SIGKILL");
    expect(host.sent.at(-1)).toMatchObject({ type: "kill", to: "worker/a" });
    host.emit(envelope("exited", "worker/a", "orchestrator", { code: null, signal: "SIGKILL" }) as ChildMessage);
    clock.advance(2000);
    expect(host.kills).toEqual([]);
    // A host that does not answer (its event loop is blocked) is killed, with every child in it.
    b.kill("SIGKILL");
    clock.advance(999);
    expect(host.kills).toEqual([]);
    clock.advance(1);
    expect(host.kills).toEqual(["SIGKILL"]);
  });

  it("kills the host at once for a child killed with a turn in flight, whose tools only the process's end stops", () => {
    const { hosts, spawner, request } = setup();
    const a = spawner.spawn(request("worker/a", { maxProcesses: 1 }));
    spawner.spawn(request("worker/b", { maxProcesses: 1 }));
    const host = hosts[0] as FakeHost;
    host.emit(
      envelope("ready", "worker/a", "orchestrator", { pid: 1, agent: "worker", instanceKey: "a" }) as ChildMessage,
    );
    const event = { id: "evt_1", agent: "worker", instanceKey: "a" } as never;
    expect(a.send(envelope("event", "orchestrator", "worker/a", { event, attempt: 1 }))).toBe(true);
    a.kill("SIGKILL");
    expect(host.kills).toEqual(["SIGKILL"]);
    expect(host.sent.some((message) => message.type === "kill")).toBe(false);
  });

  it("drops a child alone that was handed an event before it was ready: no turn of it has begun", () => {
    const { hosts, spawner, request } = setup();
    const a = spawner.spawn(request("worker/a", { maxProcesses: 1 }));
    const host = hosts[0] as FakeHost;
    const event = { id: "evt_1", agent: "worker", instanceKey: "a" } as never;
    expect(a.send(envelope("event", "orchestrator", "worker/a", { event, attempt: 1 }))).toBe(true);
    a.kill("SIGKILL");
    expect(host.kills).toEqual([]);
    expect(host.sent.at(-1)).toMatchObject({ type: "kill", to: "worker/a" });
  });

  it("drops a child alone once its turn has answered", () => {
    const { clock, hosts, spawner, request } = setup();
    const a = spawner.spawn(request("worker/a", { maxProcesses: 1 }));
    const host = hosts[0] as FakeHost;
    const event = { id: "evt_1", agent: "worker", instanceKey: "a" } as never;
    a.send(envelope("event", "orchestrator", "worker/a", { event, attempt: 1 }));
    host.emit(
      envelope("turn_result", "worker/a", "orchestrator", {
        status: "ok",
        agent: "worker",
        instanceKey: "a",
        eventId: "evt_1",
        turnId: "turn_1",
        response: "done",
        finishReason: "text_response",
      }) as ChildMessage,
    );
    a.kill("SIGKILL");
    expect(host.sent.at(-1)).toMatchObject({ type: "kill", to: "worker/a" });
    clock.advance(999);
    expect(host.kills).toEqual([]);
  });

  it("stops a host left empty once idleMs passed, unless a new child came first", () => {
    const { clock, hosts, spawner, request } = setup();
    const a = spawner.spawn(request("worker/a", { idleMs: 5000 }));
    const host = hosts[0] as FakeHost;
    a.onExit(() => {});
    host.emit(envelope("exited", "worker/a", "orchestrator", { code: 0, signal: null }) as ChildMessage);
    clock.advance(4000);
    spawner.spawn(request("worker/b", { idleMs: 5000 }));
    expect(hosts).toHaveLength(1);
    clock.advance(5000);
    expect(host.kills).toEqual([]);
    host.emit(envelope("exited", "worker/b", "orchestrator", { code: 0, signal: null }) as ChildMessage);
    clock.advance(5000);
    expect(host.kills).toEqual(["SIGTERM"]);
    // Asked to exit, it takes no new child: the next goes to a new host.
    spawner.spawn(request("worker/c"));
    expect(hosts).toHaveLength(2);
  });

  it("retires a label's older hosts when a new group appears (a reload): they exit once empty", () => {
    const { hosts, spawner, request } = setup();
    spawner.spawn(request("worker/a", { group: "old" }));
    const newer = spawner.spawn(request("worker/b", { group: "new" }));
    expect(hosts).toHaveLength(2);
    expect(newer.pid).toBe(hosts[1]?.pid as number);
    const old = hosts[0] as FakeHost;
    expect(old.kills).toEqual([]);
    old.emit(envelope("exited", "worker/a", "orchestrator", { code: 0, signal: null }) as ChildMessage);
    expect(old.kills).toEqual(["SIGTERM"]);
    spawner.spawn(request("worker/c", { group: "new", maxProcesses: 1 }));
    expect(hosts).toHaveLength(2);
  });

  it("passes a request without `share` to the inner spawner, and stops empty hosts on stopIdle", () => {
    const { hosts, passedThrough, spawner, request } = setup();
    spawner.spawn({ address: "solo/a", argv: ["--agent", "solo"] });
    expect(passedThrough.map((passed) => passed.address)).toEqual(["solo/a"]);
    spawner.spawn(request("worker/a"));
    (hosts[0] as FakeHost).emit(
      envelope("exited", "worker/a", "orchestrator", { code: 0, signal: null }) as ChildMessage,
    );
    spawner.stopIdle();
    expect(hosts[0]?.kills).toEqual(["SIGTERM"]);
  });
});
