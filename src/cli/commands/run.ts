/**
 * `goondan run [bundle]`: parses its flags, validates the bundle (exit 3 with every issue, missing env vars
 * included), picks where logs go (src/daemon/run-log.ts: stderr when stdout holds the reply of `--input` or the
 * chat of a cli Connection, the run log when stderr is that terminal too, unless `--verbose`), and hands over to
 * the daemon (src/daemon/run-daemon.ts), which runs the swarm in the foreground.
 */
import { isAbsolute, resolve } from "node:path";
import type { CliCommand } from "../command.ts";
import { EXIT } from "../command.ts";
import { formatIssues, loadBundle } from "../../config/load-bundle.ts";
import { selectSwarm } from "../../config/resolve.ts";
import { missingEnvIssues } from "../../config/value-source.ts";
import { createLogger } from "../../shared/logger.ts";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { ensureWritableStateRoot } from "../../shared/writable-state-root.ts";
import { usesTerminal } from "../../connector/host/connection-plan.ts";
import { runDaemon } from "../../daemon/run-daemon.ts";
import { apiAccessFromEnv } from "../../http/api-access.ts";
import { apiAuth } from "../../http/auth/api-auth.ts";
import { unknownApprovers } from "../../http/auth/unknown-approvers.ts";
import { apiAddress } from "../operator/api-client.ts";
import { apiSurfacesFromEnv } from "../../http/api-surfaces.ts";
import { runLogging } from "../../daemon/run-log.ts";
import { readClusterSettings } from "../../cluster/nats/settings.ts";

export const command: CliCommand = {
  name: "run",
  summary: "run the swarm in the foreground (the orchestrator daemon)",
  usage:
    "goondan run [bundle] [--swarm NAME] [--watch] [--port N] [--host H] [--state-root DIR] [--tokens-file FILE] [--input TEXT] [--record FILE] [--cluster nats://HOST:PORT [--node NAME]] [--verbose]",
  maxPositionals: 1,
  bundleEnv: true,
  flags: {
    swarm: { type: "string", short: "s", description: "the Swarm to run (default: the bundle's only Swarm)" },
    port: { type: "number", description: "HTTP API port (default GOONDAN_PORT or 8790; 0 picks a free port)" },
    host: {
      type: "string",
      description:
        "HTTP API host (default GOONDAN_HOST or 127.0.0.1; any other address needs GOONDAN_API_TOKEN or a tokens file)",
    },
    "tokens-file": {
      type: "string",
      description:
        "the API's named credentials and their scopes, YAML or JSON (default GOONDAN_API_TOKENS_FILE; none and no GOONDAN_API_TOKEN: a token is made in <state root>/api-token)",
    },
    "state-root": { type: "string", description: "state directory (default GOONDAN_STATE_ROOT or ~/.goondan)" },
    input: { type: "string", description: "send one event to the entry agent, print the reply and exit" },
    record: { type: "string", description: "record the model replies of every agent into this cassette (JSONL)" },
    watch: {
      type: "boolean",
      short: "w",
      description: "reload changed agents when goondan.yaml, prompts or entry files change",
    },
    cluster: {
      type: "string",
      description: "run as one node of a cluster over this NATS server (default GOONDAN_CLUSTER_URL; none: one host)",
    },
    node: { type: "string", description: "this node's name in the cluster (default GOONDAN_NODE or the host name)" },
    verbose: {
      type: "boolean",
      description:
        "with --input or a terminal chat, print every log line on stderr instead of only warnings and errors (the rest go to <state root>/logs/goondan.log)",
    },
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
    // Checked before anything starts: a bad URL or node name is a usage error naming the flag or variable.
    const cluster = readClusterSettings({
      ...(typeof flags.cluster === "string" ? { url: flags.cluster } : {}),
      ...(typeof flags.node === "string" ? { node: flags.node } : {}),
      env: io.env,
    });
    const stateRoot =
      typeof flags["state-root"] === "string" ? resolve(io.cwd, flags["state-root"]) : defaultStateRoot(io.env);
    // Before the first file goes there (the run log, the agent entry's cache, the lock, the store).
    ensureWritableStateRoot({ stateRoot });
    // stdout holds only the reply with --input, and is the chat with a cli Connection: logs stay out of it.
    const logs = runLogging({
      stateRoot,
      chat: input !== undefined || usesTerminal({ bundle, swarm }),
      verbose: flags.verbose === true,
    });
    if (logs.runLog)
      io.stderr(`goondan: logs go to ${logs.runLog.path} (warnings and errors show here; --verbose shows all)\n`);
    const logger = createLogger("orchestrator", { destination: logs.destination });
    // Who may use the API (credentials, _ALLOWED_ORIGINS, _ALLOWED_HOSTS, rate limits), checked before the daemon
    // starts. GOONDAN_API_TOKEN is one of the credentials (api-auth.ts), not a token of its own.
    const { token: _token, ...origins } = apiAccessFromEnv(io.env);
    const { host, port } = apiAddress({ flags, env: io.env });
    const tokensFile = typeof flags["tokens-file"] === "string" ? resolve(io.cwd, flags["tokens-file"]) : undefined;
    const auth =
      input === undefined
        ? apiAuth({ env: io.env, stateRoot, host, ...(tokensFile === undefined ? {} : { tokensFile }) })
        : undefined;
    if (auth && !auth.credentials)
      logger.warn(
        "GOONDAN_API_AUTH=off: the HTTP API runs without credentials; any program on this machine, tool calls included, may use all of it",
      );
    if (auth?.credentials)
      for (const { agent, names } of unknownApprovers({ bundle, swarm, credentials: auth.credentials }))
        logger.warn(
          { agent, approvers: names },
          `tool-approval of Agent/${agent} names approvers that are no credential of the API (${names.join(", ")}): they can never decide; approvers name credentials (docs/http-api.md#credentials)`,
        );
    const access = {
      ...origins,
      ...apiSurfacesFromEnv(io.env),
      ...(auth?.credentials ? { credentials: auth.credentials } : {}),
      ...(auth ? { logins: auth.logins, rateLimits: auth.rateLimits } : {}),
      // The login link is printed on stderr, except into a terminal chat, whose screen is the conversation's:
      // `goondan login` prints one there.
      ...(auth?.studio && !usesTerminal({ bundle, swarm }) ? { studio: auth.studio } : {}),
    };
    return runDaemon({
      bundle,
      swarm: swarm.metadata.name,
      stateRoot,
      env: io.env,
      logger,
      output: logs.childOutput,
      ...(typeof flags.record === "string"
        ? { record: isAbsolute(flags.record) ? flags.record : resolve(io.cwd, flags.record) }
        : {}),
      ...(input !== undefined ? { input, streamReply: process.stdout.isTTY === true } : {}),
      http: { host, port, ...access },
      watch: flags.watch === true,
      ...(cluster ? { cluster } : {}),
      stdout: io.stdout,
      stderr: io.stderr,
    });
  },
};
