/**
 * `goondan run [bundle]`: validates the bundle (exit 3 with every issue, missing env vars included), then
 * runs the orchestrator in the foreground with its HTTP API, the Swarm's connectors, SIGHUP and `--watch`
 * reloads until SIGTERM/SIGINT (graceful, exit 0; a second SIGINT exits 130). With `--input TEXT` it sends one event to the entry agent, prints the reply
 * on stdout (logs go to stderr then) and exits 0, or 1 when the turn failed.
 */
import { isAbsolute, resolve } from "node:path";
import type { CliCommand } from "../command.ts";
import { EXIT } from "../command.ts";
import { formatIssues, loadBundle } from "../../config/load-bundle.ts";
import { selectSwarm } from "../../config/resolve.ts";
import { missingEnvIssues } from "../../config/value-source.ts";
import { createLogger, prettyStream } from "../../shared/logger.ts";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { describe, SystemError } from "../../shared/errors.ts";
import { Orchestrator } from "../../orchestrator/orchestrator.ts";
import { bunProcessSpawner } from "../../supervision/process-spawner.ts";
import { bundleAgentEntry } from "../../daemon/agent-entry-bundle.ts";
import { hideProcessSecrets } from "../../tools/hide-process-secrets.ts";
import { serveHttpApi } from "../../http/http-api.ts";
import { listenForShutdownSignals } from "../../daemon/shutdown-signals.ts";
import { createRestartCoordinator } from "../../orchestrator/reload/restart-coordinator.ts";
import { validateBundleOnDisk } from "../../orchestrator/reload/validate-on-disk.ts";
import { applyReload, startLiveOperations, withConnectorProcesses, type LiveOperations } from "../../daemon/live-operations.ts";
import { usesTerminal } from "../../connector/host/connection-plan.ts";
import { writeStateRootLock } from "../../daemon/state-root-lock.ts";

export const command: CliCommand = {
  name: "run",
  summary: "run the swarm in the foreground (the orchestrator daemon)",
  usage: "goondan run [bundle] [--swarm NAME] [--watch] [--port N] [--host H] [--state-root DIR] [--input TEXT] [--record FILE]",
  maxPositionals: 1,
  flags: {
    swarm: { type: "string", description: "the Swarm to run (default: the bundle's only Swarm)" },
    port: { type: "number", description: "HTTP API port (default 8790; 0 picks a free port)" },
    host: { type: "string", description: "HTTP API host (default 127.0.0.1)" },
    "state-root": { type: "string", description: "state directory (default GOONDAN_STATE_ROOT or ~/.goondan)" },
    input: { type: "string", description: "send one event to the entry agent, print the reply and exit" },
    record: { type: "string", description: "record the model replies of every agent into this cassette (JSONL)" },
    watch: { type: "boolean", description: "reload changed agents when goondan.yaml, prompts or entry files change" },
  },
  async run({ flags, positionals, io }) {
    const target = resolve(io.cwd, positionals[0] ?? ".");
    const loaded = await loadBundle(target, { env: io.env });
    if (!loaded.valid || !loaded.bundle) {
      io.stderr(`goondan run: invalid bundle ${target}:\n${formatIssues(loaded.errors)}\n`);
      return EXIT.configInvalid;
    }
    const bundle = loaded.bundle;
    const swarm = selectSwarm(bundle, typeof flags.swarm === "string" ? flags.swarm : undefined);
    const missing = missingEnvIssues(bundle, swarm, io.env);
    if (missing.length > 0) {
      io.stderr(`goondan run: missing environment for Swarm/${swarm.metadata.name}:\n${formatIssues(missing)}\n`);
      return EXIT.configInvalid;
    }
    const input = typeof flags.input === "string" ? flags.input : undefined;
    // stdout holds only the reply with --input, and is the chat with a cli Connection: logs go to stderr then.
    const output = input !== undefined || usesTerminal({ bundle, swarm }) ? 2 : 1;
    const logger =
      output === 2 && process.stderr.isTTY === true
        ? createLogger("orchestrator", { destination: prettyStream((line) => process.stderr.write(line)), pretty: false })
        : createLogger("orchestrator", { destination: output });
    const stateRoot = typeof flags["state-root"] === "string" ? resolve(io.cwd, flags["state-root"]) : defaultStateRoot(io.env);
    const record = typeof flags.record === "string" ? (isAbsolute(flags.record) ? flags.record : resolve(io.cwd, flags.record)) : undefined;
    const load = () => validateBundleOnDisk({ target: bundle.dir, swarm: swarm.metadata.name, env: io.env });
    let live: LiveOperations | undefined;
    // Same-user tools must not read the orchestrator's environment (every key) through /proc.
    await hideProcessSecrets();
    const entryScript = await bundleAgentEntry({ stateRoot, logger, env: io.env });
    const orchestrator: Orchestrator = new Orchestrator({
      bundle,
      swarm: swarm.metadata.name,
      stateRoot,
      spawner: bunProcessSpawner({ output, env: io.env, entryScript }),
      env: io.env,
      logger,
      ...(record ? { childEnv: { GOONDAN_RECORD_CASSETTE: record } } : {}),
      restartHandler: (request) => coordinator.request({ reason: request.reason, afterTurn: request.afterTurn }),
    });
    const coordinator = createRestartCoordinator({ loadBundle: load, reload: (plan) => applyReload({ orchestrator, connectors: live?.connectors, plan }), logger });
    const signals = listenForShutdownSignals({ onForcedExit: () => logger.warn("second interrupt: exiting at once") });
    const lock = writeStateRootLock({ stateRoot }); // `goondan instance delete` must know a live orchestrator owns the state root
    const stopAll = async (reason: string) => {
      await live?.stop();
      coordinator.close();
      await orchestrator.shutdown({ reason });
    };
    try {
      orchestrator.start();
      if (input !== undefined) return await runOnce({ orchestrator, input, signals, io });
      let api: ReturnType<typeof serveHttpApi>;
      const host = typeof flags.host === "string" ? flags.host : "127.0.0.1";
      const port = typeof flags.port === "number" ? flags.port : 8790;
      try {
        api = serveHttpApi({
          orchestrator: withConnectorProcesses(orchestrator, () => live),
          host,
          port,
          logger,
          ...(io.env.GOONDAN_API_TOKEN ? { token: io.env.GOONDAN_API_TOKEN } : {}),
          restart: (request) => coordinator.request(request),
        });
      } catch (error) {
        await stopAll("startup failed");
        throw new SystemError("E_RUN_LISTEN", `cannot listen on ${host}:${port}: ${describe(error).message}`, { suggestion: "pick another --port (0 picks a free one)" });
      }
      if (!io.env.GOONDAN_API_TOKEN && !["127.0.0.1", "localhost", "::1"].includes(host)) {
        logger.warn({ host }, "the HTTP API listens beyond loopback without GOONDAN_API_TOKEN; anyone who can reach it can submit events");
      }
      lock.listening({ port: api.port, host: api.host });
      live = await startLiveOperations({ orchestrator, coordinator, load, env: io.env, watch: flags.watch === true, logger });
      logger.info({ port: api.port, host: api.host, swarm: orchestrator.swarm.name, stateRoot }, "ready");
      const signal = await signals.signalled;
      logger.info({ signal }, "shutting down");
      await stopAll(signal);
      await api.stop();
      return EXIT.ok;
    } finally {
      lock.release();
      signals.dispose();
    }
  },
};

async function runOnce(options: { orchestrator: Orchestrator; input: string; signals: ReturnType<typeof listenForShutdownSignals>; io: Parameters<CliCommand["run"]>[0]["io"] }): Promise<number> {
  const { orchestrator, io } = options;
  const submitted = orchestrator.submit({ input: options.input, source: { kind: "user", name: "cli" } });
  const outcome = await Promise.race([submitted.outcome, options.signals.signalled.then(() => undefined)]);
  await orchestrator.shutdown({ reason: outcome ? "input answered" : "interrupted" });
  if (!outcome) return EXIT.interrupted;
  if (outcome.status === "ok") {
    io.stdout(`${outcome.response}\n`);
    return EXIT.ok;
  }
  io.stderr(`goondan run: turn failed: ${outcome.error?.code ?? "error"}: ${outcome.error?.message ?? ""}\n`);
  if (outcome.response) io.stdout(`${outcome.response}\n`);
  return EXIT.failure;
}
