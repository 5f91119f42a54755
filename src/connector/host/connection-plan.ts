/**
 * From a validated bundle to the connectors to run: one ConnectorRunSpec per Connection bound to the
 * Swarm, with its Connector's entry path, its config and secrets resolved from their ValueSources,
 * its ingress rules and the Swarm's entry agent and instanceKey. The built-in `cli` connector (only
 * the first one) gets the orchestrator's stdin; the built-in `schedule` connector's Connections are no child's
 * (src/connector/schedule/schedule-plan.ts).
 */
import { ConfigError } from "../../shared/errors.ts";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { resolveEntry, resolveRef, swarmConnections } from "../../config/resolve.ts";
import { isValueSource, resolveValueSource, valueSourceEnvName, type Env } from "../../config/value-source.ts";
import {
  BUILTIN_PACKAGE,
  type Bundle,
  type ConnectionResource,
  type ConnectorResource,
  type ObjectRef,
  type SwarmResource,
  type ValueSource,
} from "../../config/types.ts";
import { SCHEDULE_CONNECTOR_NAME } from "../../config/schedule-settings.ts";
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

/** A Connection's `config` with its ValueSources resolved (E_CONFIG_ENV_MISSING when a variable is unset). */
export function resolvedConfig(connection: ConnectionResource, env: Env): JsonObject {
  const config: JsonObject = {};
  for (const [key, value] of Object.entries(connection.spec.config ?? {})) {
    config[key] = isValueSource(value)
      ? resolveValue({ connection, field: `spec.config.${key}`, source: value, env })
      : (value as JsonValue);
  }
  return config;
}

/** Whether a Connector is the built-in `schedule`, whose Connections the daemon runs itself (src/connector/schedule). */
export function isScheduleConnector(connector: ConnectorResource): boolean {
  return connector.source.package === BUILTIN_PACKAGE && connector.metadata.name === SCHEDULE_CONNECTOR_NAME;
}

/** The Swarm's Connections with the Connector each names. */
export function connectionsWithConnectors(options: {
  bundle: Bundle;
  swarm: SwarmResource;
}): { connection: ConnectionResource; connector: ConnectorResource }[] {
  return swarmConnections(options.bundle, options.swarm).map((connection) => ({
    connection,
    connector: resolveRef(options.bundle, connection.spec.connectorRef as ObjectRef & { kind: "Connector" }),
  }));
}

export function connectorRunSpecs(options: { bundle: Bundle; swarm: SwarmResource; env: Env }): ConnectorRunSpec[] {
  const { swarm, env } = options;
  let stdinTaken = false;
  return connectionsWithConnectors(options)
    .filter(({ connector }) => !isScheduleConnector(connector))
    .map(({ connection, connector }) => {
      const secrets: Record<string, string> = {};
      for (const [key, source] of Object.entries(connection.spec.secrets ?? {})) {
        secrets[key] = resolveValue({ connection, field: `spec.secrets.${key}`, source, env });
      }
      const wantsStdin =
        connector.source.package === BUILTIN_PACKAGE && connector.metadata.name === "cli" && !stdinTaken;
      if (wantsStdin) stdinTaken = true;
      return {
        connection: connection.metadata.name,
        connector: connector.metadata.name,
        entry: resolveEntry(connector),
        config: resolvedConfig(connection, env),
        secrets,
        rules: connection.spec.ingress?.rules ?? [],
        entryAgent: swarm.spec.entryAgent.name,
        swarmInstanceKey: swarm.spec.instanceKey,
        stdin: wantsStdin ? "inherit" : "ignore",
        sandbox: { network: connector.spec.network ?? "none", isolation: connector.spec.isolation ?? "auto" },
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
