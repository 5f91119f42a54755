/**
 * The embedded SQLite backend's one entry, for the layers above the store (the CLI's operator commands read a state
 * root's database directly): the store itself, a consistent copy of a database, and the mark that says whether a
 * database is a cluster node's local copy. Everything else opens it through ../open-state-store.ts; nothing outside
 * src/store names the files behind it (test/architecture/store-entries.test.ts).
 */
export { SqliteStore } from "./sqlite-store.ts";
export { backupDatabase } from "./backup-database.ts";
export type { ClusterNodeMark } from "./cluster-node-mark.ts";
