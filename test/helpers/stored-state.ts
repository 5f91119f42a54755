/** Reads a state root's store from a test, as an operator command would (the store must exist; nothing is written). */
import type { InstanceState } from "../../src/protocol/instance-state.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import type { InboxRecord, RuntimeEventQuery } from "../../src/store/store.ts";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.ts";
import { stateDatabasePath } from "../../src/store/open-state-store.ts";

/** The unanswered events of one agent of a swarm, in acceptance order. */
export async function unansweredEvents(options: {
  stateRoot: string;
  swarm: string;
  agent: string;
}): Promise<InboxRecord[]> {
  const store = new SqliteStore(stateDatabasePath(options.stateRoot), { existing: true });
  try {
    return (await store.unanswered(options.swarm)).filter((record) => record.event.agent === options.agent);
  } finally {
    void store.close();
  }
}

/** What the store of a state root keeps for one instance (the orchestrator that wrote it may be stopped). */
export async function storedInstanceState(options: {
  stateRoot: string;
  swarm: string;
  agent: string;
  instanceKey: string;
}): Promise<InstanceState> {
  const store = new SqliteStore(stateDatabasePath(options.stateRoot), { existing: true });
  try {
    return store.instanceState({ swarm: options.swarm, agent: options.agent, instanceKey: options.instanceKey });
  } finally {
    void store.close();
  }
}

/** The runtime events the store of a state root keeps, oldest first (a query as `goondan logs` makes it). */
export async function storedRuntimeEvents(options: { stateRoot: string } & RuntimeEventQuery): Promise<RuntimeEvent[]> {
  const { stateRoot, ...query } = options;
  const store = new SqliteStore(stateDatabasePath(stateRoot), { existing: true });
  try {
    return (await store.runtimeEvents(query)).map((stored) => stored.event);
  } finally {
    void store.close();
  }
}
