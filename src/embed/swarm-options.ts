/**
 * What `startSwarm` takes and gives back, shared by both ways it runs a swarm: in the caller's own process under Bun
 * (in-process-swarm.ts) and as a `goondan run` child under Bun when the caller is Node (child-swarm.ts).
 */
import type { GoondanClient } from "../client/goondan-client.ts";

export interface StartSwarmOptions {
  /**
   * The bundle: a directory or the path of its goondan.yaml, or an in-memory bundle, its files by relative path
   * (`{ files: { "goondan.yaml": "…", "prompts/a.md": "…" } }`), written to a temporary directory for the run.
   */
  bundle: string | { files: Record<string, string> };
  /** The Swarm to run. Default: the bundle's only Swarm. */
  swarm?: string;
  /** The state directory. Default: GOONDAN_STATE_ROOT or ~/.goondan, as `goondan run`. */
  stateRoot?: string;
  /** HTTP API host. Default 127.0.0.1. */
  host?: string;
  /** HTTP API port. Default 0: a free port (the client knows it). */
  port?: number;
  /** The API token (GOONDAN_API_TOKEN): the client sends it. Default: env's GOONDAN_API_TOKEN, else none. */
  token?: string;
  /** The environment of the swarm (model keys, ValueSources). Default: process.env. */
  env?: Record<string, string | undefined>;
  /**
   * `in-process`: the orchestrator runs in this process (Bun only: it uses Bun.spawn and bun:sqlite); `child`: a
   * `goondan run` child under Bun. Agents are their own Bun processes either way. Default: `in-process` under Bun,
   * `child` under Node.
   */
  mode?: "in-process" | "child";
  /** The Bun executable of `child` mode. Default: this process under Bun, else GOONDAN_BUN, the `bun` npm package, or `bun` on PATH. */
  bunPath?: string;
  /** How long `child` mode waits for the child to be ready (ms). Default 60000. */
  readyTimeoutMs?: number;
}

export interface RunningSwarm {
  /** The typed client of the swarm's HTTP API. */
  client: GoondanClient;
  /** The API's address, `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** Which way it runs. */
  mode: "in-process" | "child";
  /** Drains the agents and stops the orchestrator (and the child, in `child` mode); removes an in-memory bundle's files. */
  stop(): Promise<void>;
}
