/**
 * Spawns the REAL agent child (src/agent/entry.ts) with Bun IPC and drives it like the orchestrator does: hands it
 * its state from the store of the state root (`hydrate`), makes its commits durable and answers `committed`, and
 * commits each turn's end with its outcome — so a child started again on the same state root resumes as in production.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { startLoopbackLlm, type LoopbackLlm, type LoopbackLlmOptions } from "../../helpers/loopback-llm.ts";
import { killChild, type Defer } from "../../helpers/cleanups.ts";
import { storeFor, tempStateRoot } from "./test-env.ts";
import { AGENT_ENTRY_SCRIPT, agentChildArgv } from "../../../src/protocol/child-entry.ts";
import {
  childMessagesIn,
  envelope,
  ORCHESTRATOR,
  type ChildMessage,
  type ParentToChild,
} from "../../../src/protocol/ipc-messages.ts";
import type { AgentEvent } from "../../../src/protocol/agent-event.ts";

const FIXTURE = new URL("../../fixtures/agent/bundle", import.meta.url).pathname;

export interface FixtureBundleOptions {
  endpoint: string;
  stream?: boolean;
  agentExtra?: string;
  /** Replaces `from` by `to` in goondan.yaml; throws when `from` is not there (the fixture changed). */
  replace?: { from: string; to: string };
}

/** Copies the fixture bundle to a temp dir with the loopback endpoint filled in. */
export function writeFixtureBundle(options: FixtureBundleOptions): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-agent-bundle-"));
  cpSync(FIXTURE, dir, { recursive: true });
  const file = join(dir, "goondan.yaml");
  let text = readFileSync(file, "utf8")
    .replace("__ENDPOINT__", options.endpoint)
    .replace("__STREAM__", String(options.stream === true));
  if (options.agentExtra !== undefined)
    text = text.replace(
      "  tools: [Tool/slow, Tool/delegate]\n",
      `  tools: [Tool/slow, Tool/delegate]\n${options.agentExtra}`,
    );
  if (options.replace !== undefined) {
    if (!text.includes(options.replace.from))
      throw new Error(`fixture goondan.yaml has no ${JSON.stringify(options.replace.from)}`);
    text = text.replace(options.replace.from, options.replace.to);
  }
  writeFileSync(file, text);
  return dir;
}

export interface ChildHandle {
  pid: number;
  messages: ChildMessage[];
  send<K extends keyof ParentToChild>(type: K, payload: ParentToChild[K]): void;
  waitFor<T extends ChildMessage["type"]>(
    type: T,
    predicate?: (message: Extract<ChildMessage, { type: T }>) => boolean,
    timeoutMs?: number,
  ): Promise<Extract<ChildMessage, { type: T }>>;
  kill(signal?: number | NodeJS.Signals): void;
  /** Closes the IPC channel, as when the parent goes away. */
  disconnect(): void;
  exited: Promise<number>;
  output(): Promise<string>;
}

/** The instance the harness's children are: the fixture swarm's assistant. */
export const CHILD_INSTANCE = { swarm: "fixture", agent: "assistant", instanceKey: "main" };

export function spawnAgentChild(options: {
  bundle: string;
  stateRoot: string;
  env?: Record<string, string>;
  refuseCommits?: boolean;
}): ChildHandle {
  const messages: ChildMessage[] = [];
  const listeners = new Set<() => void>();
  const store = storeFor(options.stateRoot);
  const answer = (message: ChildMessage): void => {
    if (message.type === "commit") {
      const { seq, ...commit } = message.payload;
      if (options.refuseCommits === true)
        return void child.send(
          envelope("committed", ORCHESTRATOR, "assistant/main", {
            seq,
            error: { code: "E_STORE_WRITE_FAILED", message: "database or disk is full" },
          }),
        );
      void store
        .commit(CHILD_INSTANCE, commit)
        .then(() => child.send(envelope("committed", ORCHESTRATOR, "assistant/main", { seq })));
    } else if (message.type === "turn_result") {
      const { commit, ...outcome } = message.payload;
      void store.commit(CHILD_INSTANCE, commit ?? {}, outcome);
    } else if (message.type === "runtime_events") {
      store.appendRuntimeEvents(CHILD_INSTANCE.swarm, message.payload.events);
    }
  };
  const child = Bun.spawn(
    [
      process.execPath,
      AGENT_ENTRY_SCRIPT,
      ...agentChildArgv({
        bundle: options.bundle,
        swarm: "fixture",
        agent: "assistant",
        instanceKey: "main",
        stateRoot: options.stateRoot,
      }),
    ],
    {
      env: { ...process.env, LOOPBACK_API_KEY: "sk-loopback-secret", GOONDAN_LOG_LEVEL: "debug", ...options.env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      serialization: "json",
      ipc(message) {
        for (const each of childMessagesIn(message).messages) {
          messages.push(each);
          answer(each);
        }
        for (const listener of listeners) listener();
      },
    },
  );
  child.send(envelope("hydrate", ORCHESTRATOR, "assistant/main", store.instanceState(CHILD_INSTANCE)));
  return {
    pid: child.pid,
    messages,
    send: (type, payload) =>
      child.send(envelope(type as "event", ORCHESTRATOR, "assistant/main", payload as ParentToChild["event"])),
    waitFor: (type, predicate, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const fatal = type === "fatal" ? undefined : messages.find((message) => message.type === "fatal");
          if (fatal !== undefined) {
            listeners.delete(onMessage);
            clearTimeout(timer);
            reject(new Error(`child sent fatal while waiting for ${type}: ${JSON.stringify(fatal.payload)}`));
            return true;
          }
          const found = messages.find(
            (message) => message.type === type && (predicate === undefined || predicate(message as never)),
          );
          if (found === undefined) return false;
          listeners.delete(onMessage);
          clearTimeout(timer);
          resolve(found as never);
          return true;
        };
        const onMessage = (): void => {
          check();
        };
        const timer = setTimeout(() => {
          listeners.delete(onMessage);
          reject(
            new Error(
              `timed out waiting for ${type}; got ${messages.map((message) => message.type).join(", ") || "nothing"}`,
            ),
          );
        }, timeoutMs);
        listeners.add(onMessage);
        check();
      }),
    kill: (signal) => child.kill(signal),
    disconnect: () => child.disconnect(),
    exited: child.exited,
    output: async () => `${await new Response(child.stdout).text()}${await new Response(child.stderr).text()}`,
  };
}

let counter = 0;
export function agentEvent(input: string, overrides: Partial<AgentEvent> = {}): AgentEvent {
  counter += 1;
  return {
    id: `evt_child${Date.now()}${counter}`,
    type: "user.input",
    input,
    agent: "assistant",
    instanceKey: "main",
    source: { kind: "user", name: "test" },
    traceId: "a".repeat(32),
    callChain: [],
    metadata: {},
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

/**
 * The usual set-up of a child test: a loopback LLM answering `llm`, the fixture bundle pointed at it, a fresh
 * state root and the child, each deferred for cleanup (child killed first, then the server, then the dirs).
 */
export async function startChildOnLoopback(options: {
  defer: Defer;
  llm: LoopbackLlmOptions;
  env?: Record<string, string>;
  bundle?: Omit<FixtureBundleOptions, "endpoint">;
}): Promise<{ server: LoopbackLlm; child: ChildHandle }> {
  const server = await startLoopbackLlm(options.llm);
  options.defer(() => server.close());
  const bundle = writeFixtureBundle({ ...options.bundle, endpoint: server.url });
  const stateRoot = tempStateRoot();
  options.defer(() => {
    rmSync(bundle, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  const child = spawnAgentChild({ bundle, stateRoot, ...(options.env === undefined ? {} : { env: options.env }) });
  options.defer(killChild(child));
  return { server, child };
}
