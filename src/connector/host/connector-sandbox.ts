/**
 * A connector child's sandbox, from its Connector's `network` (none by default) and `isolation` (auto by default):
 * the argv prefix (src/tools/sandbox-profile.ts launcherArgv) that starts it in a PID, mount and (unless `network:
 * host`) network namespace of its own, with no capabilities and the state root hidden. The machine is asked once
 * per start of a Connection; where it gives no namespace, `auto` starts the connector as is with one warning per
 * process and `required` does not start it (E_CONNECTOR_ISOLATION_UNAVAILABLE, logged).
 */
import type { Logger } from "../../shared/logger.ts";
import { PidNamespaceSandbox } from "../../tools/pid-namespace-sandbox.ts";
import type { ConnectorRunSpec } from "./connector-run-spec.ts";

let warned = false;

/** Forgets that the warning was given (tests). */
export function resetConnectorIsolationWarning(): void {
  warned = false;
}

/** `spec` with its launcher set; undefined when it must not start. */
export async function sandboxedConnector(options: {
  spec: ConnectorRunSpec;
  stateRoot?: string;
  logger: Logger;
  /** Where to look for unshare and its kin (tests); default the system's. */
  helperPath?: string;
}): Promise<ConnectorRunSpec | undefined> {
  const { spec, logger } = options;
  const settings = spec.sandbox;
  if (settings === undefined || settings.isolation === "none") return spec;
  const sandbox = new PidNamespaceSandbox({
    network: settings.network,
    capabilities: "none",
    ...(options.stateRoot === undefined ? {} : { hide: options.stateRoot }),
    ...(options.helperPath === undefined ? {} : { helperPath: options.helperPath }),
  });
  const launcher = await sandbox.launcher();
  if (launcher.isolated) return { ...spec, launcher: launcher.argv };
  if (settings.isolation === "required") {
    logger.error(
      { code: "E_CONNECTOR_ISOLATION_UNAVAILABLE", connection: spec.connection, reason: launcher.reason },
      `connector not started: its Connector requires a sandbox, which this machine does not allow (${launcher.reason}); run goondan doctor, or set the Connector's isolation to auto`,
    );
    return undefined;
  }
  if (!warned) {
    warned = true;
    logger.warn(
      { reason: launcher.reason },
      "connectors run WITHOUT their sandbox: a connector can read the environment of this user's unprotected processes, the state root (goondan.db) and reach the daemon's API on 127.0.0.1; `goondan doctor` shows why",
    );
  }
  return spec;
}
