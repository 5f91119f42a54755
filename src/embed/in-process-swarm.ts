/**
 * `startSwarm` under Bun: the orchestrator runs in the caller's process, composed as `goondan run` composes it
 * (validate the bundle and its environment, bundle the agent entry, own the state root, start the Daemon with the
 * HTTP API on `host:port`); the agents are still their own Bun processes. Its logs go to stderr, so the caller's
 * stdout stays theirs. A bundle that does not validate is a ConfigError `E_CONFIG_INVALID` listing every issue.
 */
import { resolve } from "node:path";
import { createClient } from "../client/goondan-client.ts";
import { formatIssues, loadBundle } from "../config/load-bundle.ts";
import { selectSwarm } from "../config/resolve.ts";
import { missingEnvIssues, type Env } from "../config/value-source.ts";
import { bundleAgentEntry } from "../daemon/agent-entry-bundle.ts";
import { Daemon } from "../daemon/daemon.ts";
import { writeStateRootLock } from "../daemon/state-root-lock.ts";
import { apiAccessFromEnv } from "../http/api-access.ts";
import { apiAuth } from "../http/auth/api-auth.ts";
import { readStateRootToken } from "../http/auth/state-root-token.ts";
import { apiSurfacesFromEnv } from "../http/api-surfaces.ts";
import { CONNECTOR_ENTRY_SCRIPT } from "../protocol/child-entry.ts";
import { ConfigError } from "../shared/errors.ts";
import { createLogger } from "../shared/logger.ts";
import { defaultStateRoot } from "../shared/state-paths.ts";
import { ensureWritableStateRoot } from "../shared/writable-state-root.ts";
import { bunProcessSpawner } from "../supervision/process-spawner.ts";
import { sharedBunSpawner } from "../supervision/shared-spawner.ts";
import { probeAgentSandbox } from "../supervision/agent-sandbox.ts";
import { hideProcessSecrets } from "../tools/hide-process-secrets.ts";
import { bundleOnDisk } from "./bundle-source.ts";
import type { RunningSwarm, StartSwarmOptions } from "./swarm-options.ts";

export async function startInProcessSwarm(options: StartSwarmOptions): Promise<RunningSwarm> {
  const env = {
    ...(options.env ?? process.env),
    ...(options.token ? { GOONDAN_API_TOKEN: options.token } : {}),
  } as Env;
  const source = bundleOnDisk(options.bundle);
  try {
    const loaded = await loadBundle(source.path, { env });
    if (!loaded.valid || !loaded.bundle)
      throw new ConfigError("E_CONFIG_INVALID", `invalid bundle ${source.path}:\n${formatIssues(loaded.errors)}`);
    const bundle = loaded.bundle;
    const swarm = selectSwarm(bundle, options.swarm);
    const missing = missingEnvIssues(bundle, swarm, env);
    if (missing.length > 0)
      throw new ConfigError(
        "E_CONFIG_INVALID",
        `missing environment for Swarm/${swarm.metadata.name}:\n${formatIssues(missing)}`,
      );
    const stateRoot = options.stateRoot === undefined ? defaultStateRoot(env) : resolve(options.stateRoot);
    ensureWritableStateRoot({ stateRoot });
    const host = options.host ?? "127.0.0.1";
    // The same credentials as `goondan run` (api-auth.ts); the client acts as GOONDAN_API_TOKEN or the state root's own.
    const { token: _token, ...origins } = apiAccessFromEnv(env);
    const auth = apiAuth({ env, stateRoot, host });
    const access = {
      ...origins,
      ...apiSurfacesFromEnv(env),
      ...(auth.credentials ? { credentials: auth.credentials } : {}),
      logins: auth.logins,
      rateLimits: auth.rateLimits,
    };
    const token = env.GOONDAN_API_TOKEN || readStateRootToken(stateRoot);
    const logger = createLogger("orchestrator", { destination: 2 });
    await hideProcessSecrets();
    const entryScript = await bundleAgentEntry({ stateRoot, logger, env });
    const sandbox = await probeAgentSandbox({ stateRoot, logger });
    const lock = writeStateRootLock({ stateRoot });
    let daemon: Daemon;
    try {
      daemon = await Daemon.start({
        bundle,
        swarm: swarm.metadata.name,
        stateRoot,
        env,
        logger,
        spawner: sharedBunSpawner({ logger, output: 2, env, entryScript, sandbox }),
        connectorSpawner: bunProcessSpawner({ entryScript: CONNECTOR_ENTRY_SCRIPT, output: 2, env }),
        http: { host, port: options.port ?? 0, ...access },
        reloadSignal: false,
      });
    } catch (error) {
      lock.release();
      throw error;
    }
    const address = daemon.address as { host: string; port: number };
    lock.listening(address);
    const baseUrl = `http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`;
    let stopped: Promise<void> | undefined;
    return {
      client: createClient({ baseUrl, ...(token ? { token } : {}) }),
      baseUrl,
      mode: "in-process",
      stop: () =>
        (stopped ??= daemon.stop("startSwarm stop()").finally(() => {
          lock.release();
          source.dispose();
        })),
    };
  } catch (error) {
    source.dispose();
    throw error;
  }
}
