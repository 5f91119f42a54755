/**
 * The agent child's entry script (AGENT_ENTRY_SCRIPT), started by the orchestrator with Bun.spawn IPC
 * (`serialization: "json"`). With `--host` the process holds many instances of one agent (host/agent-host.ts),
 * else the one instance its argv names. It only wires the process to runAgentHost or runAgentChild: argv, `process.send`/`on("message")`,
 * the disconnect signal, pino logs to stdout with {agent, instanceKey} bound, and the bundle loader (the
 * orchestrator's validated snapshot when GOONDAN_BUNDLE_SNAPSHOT is set, else the bundle directory, loaded
 * lazily so the config validator is not even imported in the snapshot case). It first makes the process
 * non-dumpable (hideProcessSecrets), so the API keys in its environment stay out of reach of tool commands.
 * Signals: Ctrl+C reaches the whole process group, but only the orchestrator decides (it sends `shutdown`), so
 * SIGINT is ignored; SIGTERM (`kill -TERM -<pgid>`) is a graceful shutdown: the turn finishes, then exit 0.
 */
import "../tools/goondan-module-resolver.ts"; // first: tool and extension files may import "goondan"
import type { Bundle } from "../config/types.ts";
import { AGENT_HOST_FLAG, BUNDLE_SNAPSHOT_ENV, parseAgentChildArgv } from "../protocol/child-entry.ts";
import type { ChildMessage } from "../protocol/ipc-messages.ts";
import { createLogger } from "../shared/logger.ts";
import { hideProcessSecrets } from "../tools/hide-process-secrets.ts";
import { readBundleSnapshot } from "./instance/bundle-snapshot.ts";
import { runAgentChild, type ChildChannel } from "./child/agent-child.ts";
import { runAgentHost } from "./host/agent-host.ts";

// Before anything else: a signal arriving during start-up must not kill us either.
process.on("SIGINT", () => {});
let stopSignal: ((signal: string) => void) | undefined;
let stopRequested: string | undefined;
process.on("SIGTERM", () => {
  if (stopSignal) stopSignal("SIGTERM");
  else stopRequested = "SIGTERM";
});

// First, before any API key is read: commands the model runs as our user must not read our /proc environ/mem.
await hideProcessSecrets();

const argv = process.argv.slice(2);
const args = argv.includes(AGENT_HOST_FLAG) ? undefined : parseAgentChildArgv(argv);
const logger = createLogger("agent", {
  bindings:
    args === undefined
      ? { agent: argv[argv.indexOf("--agent") + 1] ?? "", host: true }
      : { agent: args.agent, instanceKey: args.instanceKey },
});

const exit = (code: number): void => {
  // Let pending IPC writes flush before leaving.
  setTimeout(() => process.exit(code), 20);
};

if (typeof process.send !== "function") {
  logger.fatal("the agent entry must be started with an IPC channel (Bun.spawn ipc)");
  process.exit(1);
}

const channel: ChildChannel = {
  send: (message: ChildMessage) => {
    process.send?.(message);
  },
  onMessage: (listener) => {
    process.on("message", listener);
  },
  onDisconnect: (listener) => {
    process.on("disconnect", listener);
  },
};
const onStopSignal = (listener: (signal: string) => void): void => {
  stopSignal = listener;
  if (stopRequested !== undefined) listener(stopRequested);
};
const loadBundle = async (dir: string): Promise<Bundle> => {
  const snapshot = process.env[BUNDLE_SNAPSHOT_ENV];
  if (snapshot !== undefined && snapshot !== "") return readBundleSnapshot(snapshot);
  const { loadBundleOrThrow } = await import("../config/load-bundle.ts");
  return loadBundleOrThrow(dir, { checkModules: false });
};

if (args === undefined) runAgentHost({ logger, exit, onStopSignal, loadBundle, channel });
else await runAgentChild({ args, logger, exit, onStopSignal, loadBundle, channel });
