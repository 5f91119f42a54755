/**
 * What the JetStream backend of the store needs from its caller, and nothing more: a handle on JetStream (the
 * cluster's connection is one), the names of the stream and subjects an instance's state log lives on, and the
 * fence token that makes a writer an instance's only one (the cluster's lease is one: its KV revision orders the
 * holders). The cluster passes its connection, names and leases in; this folder never imports from src/cluster.
 */
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";

export interface JetStreamHandle {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
}

/** Where the instances' state logs live. */
export interface StateLogNames {
  /** The swarm's instanceKey (for the stream's description). */
  swarm: string;
  /** The stream of every instance's state log. */
  stateStream: string;
  /** The subjects of that stream (a wildcard over every instance). */
  stateSubjects: string;
  /** One instance's state log: no other instance's name maps to it. */
  stateSubject(agent: string, instanceKey: string): string;
  /** Where the stream republishes every record once stored (a wildcard mapping `stateSubjects` one to one). */
  storedStateSubjects: string;
}

/** Who writes, and in which order holders came: a later holder's revision is greater. */
export interface FenceToken {
  owner: string;
  revision: number;
}
