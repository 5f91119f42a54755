/**
 * `goondan run` in the foreground, after its flags were parsed and the bundle validated: makes this process's
 * secrets unreadable to tool commands, bundles the agent entry once, owns the state root (lock file), starts the
 * Daemon, and then either sends one event and prints its reply (`--input`: exit 0, or 1 when the turn failed; on a
 * terminal a spinner runs while the model thinks, the reply is printed as it streams, a line per tool call on stderr) or
 * serves until SIGTERM/SIGINT (a graceful drain, exit 0; a second Ctrl+C exits 130 at once).
 */
import { TurnStatus } from "../connector/turn-status.ts";
import type { TurnProgress } from "../protocol/turn-progress.ts";
import type { Bundle } from "../config/types.ts";
import type { Env } from "../config/value-source.ts";
import { EXIT } from "../shared/exit-codes.ts";
import { UsageError } from "../shared/errors.ts";
import type { Logger } from "../shared/logger.ts";
import type { ApiListenOptions } from "../http/api-access.ts";
import { isWildcardHost } from "../http/bound-address.ts";
import type { ClusterSettings } from "../cluster/nats/settings.ts";
import { hideProcessSecrets } from "../tools/hide-process-secrets.ts";
import { CONNECTOR_ENTRY_SCRIPT, RECORD_CASSETTE_ENV } from "../protocol/child-entry.ts";
import type { ChildOutput } from "../supervision/child-output.ts";
import { probeAgentSandbox } from "../supervision/agent-sandbox.ts";
import { bunProcessSpawner } from "../supervision/process-spawner.ts";
import { sharedBunSpawner } from "../supervision/shared-spawner.ts";
import { bundleAgentEntry } from "./agent-entry-bundle.ts";
import { Daemon } from "./daemon.ts";
import { listenForShutdownSignals, type ShutdownSignals } from "./shutdown-signals.ts";
import { writeStateRootLock } from "./state-root-lock.ts";

export interface RunDaemonOptions {
  bundle: Bundle;
  swarm: string;
  stateRoot: string;
  env: Env;
  logger: Logger;
  /** Where agents' and connectors' stdout/stderr go: 1, 2 when stdout holds the reply or the chat, or the run log. */
  output: ChildOutput;
  /** `--record`: the cassette every model call is appended to. */
  record?: string;
  /** `--input`: send this one event to the entry agent, print the reply, exit. */
  input?: string;
  /** `--input` on a terminal: the reply's text is printed as it streams, and a line per tool call on stderr. */
  streamReply?: boolean;
  http: ApiListenOptions;
  watch: boolean;
  /** `--cluster`: join this cluster as one of its nodes. */
  cluster?: ClusterSettings;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export async function runDaemon(options: RunDaemonOptions): Promise<number> {
  const { logger, env } = options;
  // Same-user tools must not read the orchestrator's environment (every key) through /proc.
  await hideProcessSecrets();
  // Side by side: the bundle (when its sources changed) and the question asked once, whether agent processes can
  // run in their sandbox here (tool and extension modules run in them).
  const [entryScript, sandbox] = await Promise.all([
    bundleAgentEntry({ stateRoot: options.stateRoot, logger, env }),
    probeAgentSandbox({ stateRoot: options.stateRoot, logger }),
  ]);
  const signals = listenForShutdownSignals({ onForcedExit: () => logger.warn("second interrupt: exiting at once") });
  const lock = writeStateRootLock({ stateRoot: options.stateRoot }); // `goondan instance delete` must know a live orchestrator owns the state root
  try {
    const once = options.input !== undefined;
    const daemon = await Daemon.start({
      bundle: options.bundle,
      swarm: options.swarm,
      stateRoot: options.stateRoot,
      env,
      logger,
      spawner: sharedBunSpawner({ logger, output: options.output, env, entryScript, sandbox }),
      connectorSpawner: bunProcessSpawner({ entryScript: CONNECTOR_ENTRY_SCRIPT, output: options.output, env }),
      ...(options.cluster ? { cluster: { settings: options.cluster, ...clusterTtl(env) } } : {}),
      ...(options.record ? { childEnv: { [RECORD_CASSETTE_ENV]: options.record } } : {}),
      ...(once ? { connectors: false, reloadSignal: false } : { http: options.http, watch: options.watch }),
    });
    if (options.input !== undefined) return await answerOnce({ daemon, input: options.input, signals, options });
    const address = daemon.address;
    if (address) lock.listening(address);
    logger.info(
      { port: address?.port, host: address?.host, swarm: daemon.orchestrator.swarm.name, stateRoot: options.stateRoot },
      "ready",
    );
    if (address) printStudioLogin({ http: options.http, address, stderr: options.stderr });
    const signal = await signals.signalled;
    logger.info({ signal }, "shutting down");
    await daemon.stop(signal);
    return EXIT.ok;
  } finally {
    lock.release();
    signals.dispose();
  }
}

/**
 * The studio's one-time login link, on stderr only: never in a log line, since the run log lies in the state root,
 * which tool calls may read (docs/threat-model.md).
 */
function printStudioLogin(options: {
  http: ApiListenOptions;
  address: { host: string; port: number };
  stderr: (text: string) => void;
}): void {
  const { logins, studio, credentials } = options.http;
  if (logins === undefined || studio === undefined || credentials === undefined) return;
  const { host, port } = options.address;
  const shown = isWildcardHost(host) ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  options.stderr(
    `goondan: open the studio at http://${shown}:${port}/login?token=${logins.mint(studio)} (this link logs in once, as ${studio.name}; goondan login prints another)\n`,
  );
}

async function answerOnce(context: {
  daemon: Daemon;
  input: string;
  signals: ShutdownSignals;
  options: RunDaemonOptions;
}): Promise<number> {
  const { daemon, options } = context;
  // On a terminal: a spinner while the model thinks, the text as it streams, a line per tool call on stderr.
  const status =
    options.streamReply === true ? new TurnStatus({ write: options.stdout, writeTool: options.stderr }) : undefined;
  const onProgress = (progress: TurnProgress) => status?.progress(progress);
  const submitted = daemon.orchestrator.submit({
    input: context.input,
    source: { kind: "user", name: "cli" },
    ...(status ? { onProgress } : {}),
  });
  status?.start();
  const outcome = await Promise.race([submitted.outcome, context.signals.signalled.then(() => undefined)]);
  status?.stop();
  await daemon.stop(outcome ? "input answered" : "interrupted");
  if (!outcome) return EXIT.interrupted;
  if (outcome.status === "ok") {
    if (status) status.finish(outcome);
    else options.stdout(`${outcome.response}\n`);
    return EXIT.ok;
  }
  status?.breakLine();
  options.stderr(`goondan run: turn failed: ${outcome.error?.code ?? "error"}: ${outcome.error?.message ?? ""}\n`);
  if (outcome.response) options.stdout(`${outcome.response}\n`);
  return EXIT.failure;
}

/** GOONDAN_CLUSTER_LEASE_TTL_MS: the lease TTL (every node of a cluster must use the same). Default: the cluster's 10 s. */
function clusterTtl(env: Env): { ttlMs?: number } {
  const raw = env.GOONDAN_CLUSTER_LEASE_TTL_MS;
  if (raw === undefined || raw === "") return {};
  const ttlMs = Number(raw);
  if (!Number.isInteger(ttlMs) || ttlMs < 1000)
    throw new UsageError(
      "E_CLUSTER_CONFIG_INVALID",
      `GOONDAN_CLUSTER_LEASE_TTL_MS: expected a whole number of milliseconds, at least 1000, got ${JSON.stringify(raw)}`,
    );
  return { ttlMs };
}
