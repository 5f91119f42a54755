/**
 * A fake ProcessSpawner for orchestrator unit tests: children are in-memory objects the test drives
 * (`child.ready()`, `child.reply(...)`, `child.crash()`), every message the orchestrator sends is recorded,
 * and misuse fails loudly (sending to an exited child is recorded as a violation, replying to an event
 * that was never delivered throws).
 */
import type {
  ChildExit,
  ChildProcessHandle,
  ProcessSpawner,
  SpawnRequest,
} from "../../src/supervision/process-spawner.ts";
import {
  envelope,
  type ChildMessage,
  type ChildToParent,
  type ParentMessage,
  type ParentToChild,
} from "../../src/protocol/ipc-messages.ts";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import type { TurnOutcome } from "../../src/protocol/turn-outcome.ts";

let nextPid = 50_000;

export class FakeChild implements ChildProcessHandle {
  readonly pid = nextPid++;
  readonly sent: ParentMessage[] = [];
  readonly kills: string[] = [];
  exited: ChildExit | undefined;
  private messageListeners: ((message: ChildMessage) => void)[] = [];
  private exitListeners: ((exit: ChildExit) => void)[] = [];

  constructor(
    readonly request: SpawnRequest,
    private readonly spawner: FakeSpawner,
  ) {}

  get address(): string {
    return this.request.address;
  }

  send(message: ParentMessage): boolean {
    if (this.exited) {
      this.spawner.violations.push(`send ${message.type} to exited child ${this.address}`);
      return false;
    }
    this.sent.push(message);
    this.spawner.onSent?.(this, message);
    return true;
  }

  onMessage(listener: (message: ChildMessage) => void): void {
    this.messageListeners.push(listener);
  }

  onExit(listener: (exit: ChildExit) => void): void {
    this.exitListeners.push(listener);
  }

  kill(signal: "SIGTERM" | "SIGKILL" = "SIGTERM"): void {
    this.kills.push(signal);
    if (signal === "SIGKILL") this.exit({ code: null, signal: "SIGKILL" });
  }

  emit<K extends keyof ChildToParent>(type: K, payload: ChildToParent[K]): void {
    if (this.exited) throw new Error(`FakeChild ${this.address}: emit ${type} after exit`);
    const message = envelope(type, this.address, "orchestrator", payload) as ChildMessage;
    for (const listener of this.messageListeners) listener(message);
  }

  ready(): void {
    const slash = this.address.indexOf("/");
    this.emit("ready", {
      pid: this.pid,
      agent: this.address.slice(0, slash),
      instanceKey: this.address.slice(slash + 1),
    });
  }

  /** The state the orchestrator handed this child when it spawned it (`hydrate`). */
  hydrated(): ParentToChild["hydrate"] {
    const message = this.sent.find((sent) => sent.type === "hydrate");
    if (!message) throw new Error(`FakeChild ${this.address}: no hydrate was sent`);
    return message.payload as ParentToChild["hydrate"];
  }

  /** Events delivered to this child, in order. */
  events(): ParentToChild["event"][] {
    return this.sent.flatMap((message) => (message.type === "event" ? [message.payload] : []));
  }

  lastEvent(): AgentEvent {
    const events = this.events();
    const last = events[events.length - 1];
    if (!last) throw new Error(`FakeChild ${this.address}: no event was delivered`);
    return last.event;
  }

  /** Answers a delivered event (the last one by default). */
  reply(
    options: {
      response?: string;
      status?: "ok" | "error";
      event?: AgentEvent;
      error?: { code: string; message: string };
    } = {},
  ): void {
    const event = options.event ?? this.lastEvent();
    if (!this.events().some((delivered) => delivered.event.id === event.id))
      throw new Error(`FakeChild ${this.address}: reply to undelivered event ${event.id}`);
    const payload: TurnOutcome = {
      status: options.status ?? "ok",
      agent: event.agent,
      instanceKey: event.instanceKey,
      eventId: event.id,
      turnId: `turn_${event.id}`,
      response: options.response ?? `${this.address}: ${event.input}`,
      finishReason: options.status === "error" ? "error" : "stop",
      ...(options.error ? { error: options.error } : {}),
    };
    this.emit("turn_result", payload);
  }

  exit(exit: ChildExit = { code: 0, signal: null }): void {
    if (this.exited) return;
    this.exited = exit;
    for (const listener of this.exitListeners) listener(exit);
  }

  crash(): void {
    this.exit({ code: 1, signal: null });
  }
}

export class FakeSpawner implements ProcessSpawner {
  readonly children: FakeChild[] = [];
  readonly violations: string[] = [];
  /** Hook: runs after each spawn (e.g. `child => child.ready()`). */
  onSpawn: ((child: FakeChild) => void) | undefined;
  /** Hook: runs after every message sent to a child. */
  onSent: ((child: FakeChild, message: ParentMessage) => void) | undefined;

  spawn(request: SpawnRequest): ChildProcessHandle {
    const child = new FakeChild(request, this);
    this.children.push(child);
    this.onSpawn?.(child);
    return child;
  }

  /** Children of an agent (of one instance with `instanceKey`), or of a connector by its address (`connector:<name>`). */
  of(agent: string, instanceKey?: string): FakeChild[] {
    return this.children.filter((child) =>
      instanceKey === undefined
        ? child.address === agent || child.address.startsWith(`${agent}/`)
        : child.address === `${agent}/${instanceKey}`,
    );
  }

  /** The most recent child of an agent; throws when there is none. */
  latest(agent: string, instanceKey?: string): FakeChild {
    const list = this.of(agent, instanceKey);
    const child = list[list.length - 1];
    if (!child)
      throw new Error(`FakeSpawner: no child was spawned for ${agent}${instanceKey ? `/${instanceKey}` : ""}`);
    return child;
  }

  live(): FakeChild[] {
    return this.children.filter((child) => !child.exited);
  }
}
