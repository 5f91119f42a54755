/**
 * How the orchestrator starts its children, and all it knows of them besides the IPC messages: the paths of the
 * agent and connector entry scripts, the agent child's command-line arguments, and the environment variables a
 * child reads at start (the validated bundle snapshot, the cassette to record into).
 */

/** Path of the agent child's entry script: the only agent file the orchestrator knows. */
export const AGENT_ENTRY_SCRIPT = new URL("../agent/entry.ts", import.meta.url).pathname;

/** Path of the connector child's entry script (`bun <script> --connection <name>`). */
export const CONNECTOR_ENTRY_SCRIPT = new URL("../connector/entry.ts", import.meta.url).pathname;

/** Command-line arguments of the agent entry script. */
export interface AgentChildArgs {
  bundle: string;
  swarm: string;
  agent: string;
  instanceKey: string;
  stateRoot: string;
}

export function agentChildArgv(args: AgentChildArgs): string[] {
  return [
    "--bundle",
    args.bundle,
    "--swarm",
    args.swarm,
    "--agent",
    args.agent,
    "--instance-key",
    args.instanceKey,
    "--state-root",
    args.stateRoot,
  ];
}

export function parseAgentChildArgv(argv: readonly string[]): AgentChildArgs {
  const read = (flag: string): string => {
    const index = argv.indexOf(flag);
    const value = index >= 0 ? argv[index + 1] : undefined;
    if (value === undefined) throw new Error(`missing ${flag} argument`);
    return value;
  };
  return {
    bundle: read("--bundle"),
    swarm: read("--swarm"),
    agent: read("--agent"),
    instanceKey: read("--instance-key"),
    stateRoot: read("--state-root"),
  };
}

/**
 * The agent entry's argv for a host: a process that holds many instances of one agent, each opened by an `open`
 * message carrying that instance's own `agentChildArgv`.
 */
export const AGENT_HOST_FLAG = "--host";

export function agentHostArgv(agent: string): string[] {
  return [AGENT_HOST_FLAG, "--agent", agent];
}

/** Arguments of the connector entry script. */
export function connectorChildArgv(connection: string): string[] {
  return ["--connection", connection];
}

/**
 * Optional env for the agent child: path of a JSON file holding the validated Bundle (`JSON.stringify(bundle)`,
 * written atomically by the orchestrator after it validated the bundle). With it the child skips re-reading and
 * re-validating the bundle directory (most of its start-up time) and runs exactly the config the orchestrator
 * validated. Without it the child loads `--bundle` itself.
 */
export const BUNDLE_SNAPSHOT_ENV = "GOONDAN_BUNDLE_SNAPSHOT";

/** Optional env for the agent child: append every model call to this cassette file (`goondan run --record`). */
export const RECORD_CASSETTE_ENV = "GOONDAN_RECORD_CASSETTE";
