/**
 * What a Daemon is started with: the validated bundle and its swarm, the state root, the environment, the spawners of
 * agent and connector children, and which of the HTTP API, the Connections, `--watch`, SIGHUP and cluster mode run.
 */
import type { Bundle } from "../config/types.ts";
import type { Env } from "../config/value-source.ts";
import type { Logger } from "../shared/logger.ts";
import type { ProcessSpawner } from "../supervision/process-spawner.ts";
import type { ApiListenOptions } from "../http/api-access.ts";
import type { ClusterSettings } from "../cluster/nats/settings.ts";

export interface DaemonOptions {
  bundle: Bundle;
  swarm: string;
  stateRoot: string;
  /** Children's variables and the Connections' ValueSources are taken from here. */
  env: Env;
  logger: Logger;
  /** Spawns agent children. */
  spawner: ProcessSpawner;
  /** Spawns connector children. Default: the connector entry through bunProcessSpawner. */
  connectorSpawner?: ProcessSpawner;
  /** Extra environment for agent children (GOONDAN_RECORD_CASSETTE). Default: none. */
  childEnv?: Record<string, string>;
  /** Serve the HTTP API (where, and who may use it). Default: no API (`run --input`). */
  http?: ApiListenOptions;
  /** Run the Swarm's Connections. Default true. */
  connectors?: boolean;
  /** `--watch`. Default false. */
  watch?: boolean;
  /** SIGHUP restarts. Default true. */
  reloadSignal?: boolean;
  /** Restart requests within this window become one reload. Default: the coordinator's. */
  coalesceMs?: number;
  /** `--cluster`: run as one node of a cluster on NATS. Default: none, one host. */
  cluster?: { settings: ClusterSettings; ttlMs?: number };
}
