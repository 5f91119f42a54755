/**
 * One case as real goondan processes: a Daemon started in this process on the case's own state root (a fresh
 * instance, its own store and workspace; agent and tool children are real Bun processes), the fixtures placed in
 * the agent's workspace, each turn submitted to the same instance and awaited, then what the run recorded read
 * back from the store (runtime events, every instance's conversation, kept redacted and bounded as the case's record:
 * case-record.ts), and the daemon stopped. A Daemon per case
 * rather than one for the run: the cassette a case records into or replays from is per daemon (its children's
 * environment and its bundle snapshot), and a store per case keeps what one case did out of another's score.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CONNECTOR_ENTRY_SCRIPT, RECORD_CASSETTE_ENV } from "../protocol/child-entry.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { TurnOutcome } from "../protocol/turn-outcome.ts";
import type { Bundle, EvalCase } from "../config/types.ts";
import type { Env } from "../config/value-source.ts";
import type { Logger } from "../shared/logger.ts";
import { instancePaths } from "../shared/state-paths.ts";
import { SystemError, UsageError } from "../shared/errors.ts";
import type { ChildOutput } from "../supervision/child-output.ts";
import { bunProcessSpawner } from "../supervision/process-spawner.ts";
import { sharedBunSpawner } from "../supervision/shared-spawner.ts";
import { probeAgentSandbox } from "../supervision/agent-sandbox.ts";
import { swarmView } from "../orchestrator/swarm-view.ts";
import { Daemon } from "../daemon/daemon.ts";
import { caseRecord, swarmSecrets, type CaseRecord, type CaseThread } from "./case-record.ts";
import type { ToolCallRecord } from "./eval-report.ts";

export interface RunCaseOptions {
  bundle: Bundle;
  swarm: string;
  /** `<eval>/<case>`, for the instance key. */
  id: string;
  evalCase: EvalCase;
  /** The agent the turns go to. */
  agent: string;
  stateRoot: string;
  env: Env;
  logger: Logger;
  /** The agent child's entry script (bundled once per run). */
  entryScript: string;
  output: ChildOutput;
  /** `--record`: the cassette every model call of the case is appended to. */
  record?: string;
  /** Longest wait for one turn. Default 300000 ms. */
  turnTimeoutMs?: number;
  /** Aborted (Ctrl+C): stop waiting, stop the daemon, throw E_EVAL_INTERRUPTED. */
  signal?: AbortSignal;
}

export interface CaseRun {
  swarm: string;
  agent: string;
  instanceKey: string;
  outcomes: TurnOutcome[];
  /** From the first input to the last reply. */
  latencyMs: number;
  events: RuntimeEvent[];
  toolCalls: ToolCallRecord[];
  /** The agent's workspace. */
  workdir: string;
  /** Every instance's conversation and the runtime events, redacted and bounded, for the report. */
  record: CaseRecord;
}

export async function runCase(options: RunCaseOptions): Promise<CaseRun> {
  const { bundle, logger, env } = options;
  const view = swarmView({ bundle, swarm: options.swarm });
  const instanceKey = `eval-${options.id.replace("/", "-")}`;
  const workdir = instancePaths({
    stateRoot: options.stateRoot,
    swarmInstanceKey: view.instanceKey,
    agent: options.agent,
    instanceKey,
  }).workdir;
  mkdirSync(workdir, { recursive: true });
  for (const fixture of options.evalCase.fixtures) {
    const path = join(workdir, fixture.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, fixture.content);
  }
  const daemon = await Daemon.start({
    bundle,
    swarm: options.swarm,
    stateRoot: options.stateRoot,
    env,
    logger,
    spawner: sharedBunSpawner({
      logger,
      output: options.output,
      env,
      entryScript: options.entryScript,
      // The case's tool and extension modules run in the agent sandbox, as under goondan run.
      sandbox: await probeAgentSandbox({ stateRoot: options.stateRoot, logger }),
    }),
    connectorSpawner: bunProcessSpawner({ entryScript: CONNECTOR_ENTRY_SCRIPT, output: options.output, env }),
    ...(options.record ? { childEnv: { [RECORD_CASSETTE_ENV]: options.record } } : {}),
    connectors: false,
    reloadSignal: false,
  });
  try {
    const outcomes: TurnOutcome[] = [];
    const started = performance.now();
    for (const input of options.evalCase.turns) {
      const submitted = daemon.orchestrator.submit({
        input,
        agent: options.agent,
        instanceKey,
        source: { kind: "user", name: "eval" },
      });
      const outcome = await waitForOutcome({
        outcome: submitted.outcome,
        ms: options.turnTimeoutMs ?? 300_000,
        id: options.id,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      outcomes.push(outcome);
      if (outcome.status !== "ok") break;
    }
    const latencyMs = Math.round(performance.now() - started);
    const events = (await daemon.orchestrator.runtimeEvents({})).map((stored) => stored.event);
    const threads = await conversationsOf(daemon);
    return {
      swarm: view.name,
      agent: options.agent,
      instanceKey,
      outcomes,
      latencyMs,
      events,
      toolCalls: toolCallsOf(threads),
      workdir,
      record: caseRecord({ threads, events, secrets: swarmSecrets(bundle, options.swarm, env) }),
    };
  } finally {
    await daemon.stop("eval case done");
  }
}

/** Every instance's stored conversation. */
async function conversationsOf(daemon: Daemon): Promise<CaseThread[]> {
  const threads: CaseThread[] = [];
  for (const row of await daemon.orchestrator.instances())
    threads.push({
      agent: row.agent,
      instanceKey: row.instanceKey,
      messages: await daemon.orchestrator.messages(row.agent, row.instanceKey),
    });
  return threads;
}

/** Every tool call the models made, from the stored conversations of every instance, oldest first. */
function toolCallsOf(threads: CaseThread[]): ToolCallRecord[] {
  const calls: (ToolCallRecord & { at: string; order: number })[] = [];
  for (const row of threads) {
    for (const message of row.messages) {
      if (message.data.role !== "assistant" || typeof message.data.content === "string") continue;
      for (const part of message.data.content)
        if (part.type === "tool-call")
          calls.push({
            agent: row.agent,
            tool: part.toolName,
            args: part.input,
            at: message.createdAt,
            order: calls.length,
          });
    }
  }
  return calls
    .sort((left, right) => left.at.localeCompare(right.at) || left.order - right.order)
    .map(({ agent, tool, args }) => ({ agent, tool, args }));
}

/** The turn's outcome, or E_EVAL_CASE_TIMEOUT after `ms`, or E_EVAL_INTERRUPTED once `signal` aborts. */
function waitForOutcome<T>(options: { outcome: Promise<T>; ms: number; id: string; signal?: AbortSignal }): Promise<T> {
  const { id, ms, signal } = options;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SystemError("E_EVAL_CASE_TIMEOUT", `case ${id}: no reply within ${ms} ms`)),
      ms,
    );
    onAbort = () => reject(new UsageError("E_EVAL_INTERRUPTED", `case ${id}: interrupted`));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([options.outcome, stopped]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  });
}
