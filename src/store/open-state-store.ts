/**
 * Opens the embedded store of a state root (`<state root>/goondan.db`) after bringing what an older goondan left
 * there up to date, saying so in the log: first its instance directories are moved to their current names
 * (migrate-safe-names.ts), then whatever it kept in its JSONL layout is imported once (jsonl-import.ts), so the
 * import reads every key from a directory name that spells it one way. The database is marked as a cluster node's
 * local copy, or as a single host's (cluster-node-mark.ts), for the operator commands that must not change the former.
 */
import { join } from "node:path";
import type { Logger } from "../shared/logger.ts";
import { migrateSafeNames } from "../shared/migrate-safe-names.ts";
import { importJsonlLayout } from "./jsonl-import.ts";
import { STATE_DATABASE_FILE } from "./sqlite/open-database.ts";
import type { ClusterNodeMark } from "./sqlite/cluster-node-mark.ts";
import { SqliteStore } from "./sqlite/sqlite-store.ts";
import type { Store } from "./store.ts";

export function stateDatabasePath(stateRoot: string): string {
  return join(stateRoot, STATE_DATABASE_FILE);
}

/** `clusterNode`: the node of a cluster this state root serves (`goondan run --cluster`); absent: a single host. */
export function openStateStore(options: {
  stateRoot: string;
  logger: Logger;
  clusterNode?: Omit<ClusterNodeMark, "since">;
}): Store {
  const migration = migrateSafeNames({ stateRoot: options.stateRoot });
  if (migration.moved.length > 0)
    options.logger.info({ moved: migration.moved }, "renamed instance directories to their current names");
  if (migration.skipped.length > 0)
    options.logger.warn(
      { skipped: migration.skipped },
      "instance directories with ambiguous old names left where they are",
    );
  const store = new SqliteStore(stateDatabasePath(options.stateRoot));
  store.markClusterNode(
    options.clusterNode === undefined ? undefined : { ...options.clusterNode, since: new Date().toISOString() },
  );
  const imported = importJsonlLayout({ stateRoot: options.stateRoot, store });
  if (imported.instances > 0)
    options.logger.info(
      { ...imported, database: store.location },
      "imported the state an older goondan kept in JSONL files",
    );
  return store;
}
