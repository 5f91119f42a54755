/**
 * From a validated bundle to the connectors to run: one ConnectorRunSpec per Connection bound to the
 * Swarm, with its Connector's entry path, its config and secrets resolved from their ValueSources,
 * its ingress rules and the Swarm's entry agent and instanceKey. The built-in `cli` connector (only
 * the first one) gets the orchestrator's stdin.
 */
import { ConfigError } from "../../shared/errors.ts";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { resolveEntry, resolveRef, swarmConnections } from "../../config/resolve.ts";
import { isValueSource, resolveValueSource, valueSourceEnvName, type Env } from "../../config/value-source.ts";
import {
  BUILTIN_PACKAGE,
  type Bundle,
  type ConnectionResource,
  type ObjectRef,
  type SwarmResource,
  type ValueSource,
} from "../../config/types.ts";
import type { ConnectorRunSpec } from "./connector-supervisor.ts";

function resolveValue(options: {
  connection: ConnectionResource;
  field: string;
  source: ValueSource;
  env: Env;
}): string {
  const value = resolveValueSource(options.source, options.env);
  if (value !== undefined) return value;
  throw new ConfigError(
    "E_CONFIG_ENV_MISSING",
    `Connection/${options.connection.metadata.name} ${options.field}: expected env var ${valueSourceEnvName(options.source)} to be set, found it unset`,
  );
}

export function connectorRunSpecs(options: { bundle: Bundle; swarm: SwarmResource; env: Env }): ConnectorRunSpec[] {
  const { bundle, swarm, env } = options;
  let stdinTaken = false;
  return swarmConnections(bundle, swarm).map((connection) => {
    const connector = resolveRef(bundle, connection.spec.connectorRef as ObjectRef & { kind: "Connector" });
    const config: JsonObject = {};
    for (const [key, value] of Object.entries(connection.spec.config ?? {})) {
      config[key] = isValueSource(value)
        ? resolveValue({ connection, field: `spec.config.${key}`, source: value, env })
        : (value as JsonValue);
    }
    const secrets: Record<string, string> = {};
    for (const [key, source] of Object.entries(connection.spec.secrets ?? {})) {
      secrets[key] = resolveValue({ connection, field: `spec.secrets.${key}`, source, env });
    }
    const wantsStdin = connector.source.package === BUILTIN_PACKAGE && connector.metadata.name === "cli" && !stdinTaken;
    if (wantsStdin) stdinTaken = true;
    return {
      connection: connection.metadata.name,
      connector: connector.metadata.name,
      entry: resolveEntry(connector),
      config,
      secrets,
      rules: connection.spec.ingress?.rules ?? [],
      entryAgent: swarm.spec.entryAgent.name,
      swarmInstanceKey: swarm.spec.instanceKey,
      stdin: wantsStdin ? "inherit" : "ignore",
    };
  });
}

/** Whether the Swarm has a Connection to the built-in `cli` connector (the terminal is the chat then). */
export function usesTerminal(options: { bundle: Bundle; swarm: SwarmResource }): boolean {
  return swarmConnections(options.bundle, options.swarm).some((connection) => {
    const connector = resolveRef(options.bundle, connection.spec.connectorRef as ObjectRef & { kind: "Connector" });
    return connector.source.package === BUILTIN_PACKAGE && connector.metadata.name === "cli";
  });
}
