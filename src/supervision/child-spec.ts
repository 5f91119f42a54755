/**
 * What an owner (an agent instance, a connector link) and its Supervisor say to each other: the child spec (how
 * to start the child and when it counts as ready), the hooks through which the owner hears of the child's life,
 * the start gate a child start must pass (the process pool), how an exit is classified, and the statuses the
 * supervisor reports. Data only; the supervisor's behaviour is in supervisor.ts.
 */
import type { ErrorInfo } from "../protocol/error-info.ts";
import type { ChildMessage } from "../protocol/ipc-messages.ts";
import type { ChildProcess } from "./child-process.ts";
import type { ChildExit, SpawnRequest } from "./process-spawner.ts";

export type SupervisorStatus = "terminated" | "spawning" | "running" | "draining" | "crashed" | "crashLoopBackOff";

export interface ChildSpec {
  /** The child's address in IPC envelopes and logs (`agent/instanceKey`, `connector:<connection>`). */
  address: string;
  /** Read at every start, so a reload's bundle and environment apply to the next child. */
  spawnRequest: () => SpawnRequest;
  /** The message that says the child is ready. */
  readyMessage: "ready" | "connector_ready";
  /** SIGKILL a child not ready within this many ms. Default: no deadline. */
  readyTimeoutMs?: number;
  /** Reset the crash count once a child stayed up this long after ready. Default: only `healthy()` resets it. */
  stableAfterMs?: number;
}

/** How a child ended, as the owner hears of it. */
export interface SupervisedExit {
  child: ChildProcess | undefined;
  exit: ChildExit;
  how: "stopped" | "left" | "crashed";
  /** It ended before its ready message (or could not be spawned: `cause`). */
  beforeReady: boolean;
  /** How it died, in words, for logs and the next delivery. */
  why: string;
  cause?: ErrorInfo;
}

export interface SupervisorHooks {
  /** Whether the owner has work that needs a child now; read whenever the supervisor could start one. */
  wanted(): boolean;
  /** A child was spawned (not ready yet): the owner may send it what it needs to start. */
  spawned?(child: ChildProcess): void;
  ready(child: ChildProcess): void;
  message(child: ChildProcess, message: ChildMessage): void;
  /** The child is gone. For a crash, the owner may say how to take it (ExitVerdict). */
  exited(exit: SupervisedExit): ExitVerdict | void;
}

/**
 * What the owner says of a crash: the child is given up on (`givenUp`: its start keeps failing), or it ended on a
 * store fault (`storeFaults`: the store refused its commit, not the child's doing; the faults in a row, this one
 * included): either way it backs off at once.
 */
export interface ExitVerdict {
  givenUp: boolean;
  storeFaults?: number;
}

/** A gate a child start must pass (the process pool): `request` asks for a slot; the owner calls `grant()` once it is free. */
export interface StartGate {
  request(): void;
  started(): void;
  released(): void;
}
