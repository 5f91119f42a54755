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
import { SystemError } from "../shared/errors.ts";
import { checkIntegrity, type IntegrityVerdict } from "./sqlite/integrity-check.ts";
import { corruptSuggestion, STORE_CORRUPT } from "./store-fault.ts";

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

/**
 * The quick integrity check of a state root's database at start (sqlite/integrity-check.ts), bounded by
 * `timeoutMs`: a damaged database refuses the start with E_STORE_CORRUPT naming the file and the remedy; a check
 * that needs longer goes on in the background and logs what it finds.
 */
export async function checkStateStore(options: {
  stateRoot: string;
  logger: Logger;
  timeoutMs?: number;
}): Promise<void> {
  const file = stateDatabasePath(options.stateRoot);
  const started = Date.now();
  const verdict = await checkIntegrity({
    file,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const report = (found: IntegrityVerdict): void => {
    if (found.type === "sound") options.logger.debug({ database: file, ms: Date.now() - started }, "store checked");
    else if (found.type === "unchecked")
      options.logger.warn({ database: file, reason: found.reason }, "could not check the state database");
    else if (found.type === "damaged")
      options.logger.error(
        { code: STORE_CORRUPT, database: file, problems: found.problems, suggestion: corruptSuggestion(file) },
        "the state database is damaged",
      );
  };
  if (verdict.type === "damaged") {
    report(verdict);
    throw damagedStore(file, verdict.problems);
  }
  if (verdict.type === "unfinished") {
    options.logger.warn({ database: file }, "the state database's integrity check goes on in the background");
    void verdict.later.then(report);
    return;
  }
  report(verdict);
}

function damagedStore(file: string, problems: string[]): SystemError {
  return new SystemError(STORE_CORRUPT, `the state database ${file} is damaged: ${problems.slice(0, 3).join("; ")}`, {
    suggestion: corruptSuggestion(file),
  });
}
