/**
 * The SQLite store's tables (version 3), created at open: the inbox (one row per accepted event, with its outcome
 * once answered), each instance's messages in order (the conversation its model sees in `messages`, those archived
 * out of it in `archived_messages`, both numbered by one per-instance seq), its pending results, its extensions' state, the instances it
 * has state for, the runtime events, indexed by instance, turn and trace, and the approvals of tool calls (the
 * request, its decision once made, and whether the resumed turn applied it). `messages` is a rowid table, appended at
 * its end, with one index, by message id: a conversation is read in seq order by sorting it; the inbox's seq is its
 * rowid, never reused since inbox rows are never deleted (schema-migration.ts says why).
 */
export const SCHEMA_VERSION = 3;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS inbox (
  seq INTEGER PRIMARY KEY,
  swarm TEXT NOT NULL,
  event_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  instance_key TEXT NOT NULL,
  event TEXT NOT NULL,
  accepted_at INTEGER NOT NULL,
  crashes INTEGER NOT NULL DEFAULT 0,
  last_crash TEXT,
  outcome TEXT,
  answered_at INTEGER,
  UNIQUE (swarm, event_id)
);
CREATE INDEX IF NOT EXISTS inbox_unanswered ON inbox (swarm, seq) WHERE outcome IS NULL;
CREATE TABLE IF NOT EXISTS messages (
  swarm TEXT NOT NULL,
  agent TEXT NOT NULL,
  instance_key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS messages_id ON messages (swarm, agent, instance_key, id);
CREATE TABLE IF NOT EXISTS archived_messages (
  swarm TEXT NOT NULL,
  agent TEXT NOT NULL,
  instance_key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  message TEXT NOT NULL,
  PRIMARY KEY (swarm, agent, instance_key, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS archived_messages_id ON archived_messages (swarm, agent, instance_key, id);
CREATE TABLE IF NOT EXISTS pending_results (
  swarm TEXT NOT NULL,
  agent TEXT NOT NULL,
  instance_key TEXT NOT NULL,
  id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  result TEXT NOT NULL,
  PRIMARY KEY (swarm, agent, instance_key, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS extension_state (
  swarm TEXT NOT NULL,
  agent TEXT NOT NULL,
  instance_key TEXT NOT NULL,
  extension TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (swarm, agent, instance_key, extension)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS instances (
  swarm TEXT NOT NULL,
  agent TEXT NOT NULL,
  instance_key TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (swarm, agent, instance_key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runtime_events (
  cursor INTEGER PRIMARY KEY AUTOINCREMENT,
  swarm TEXT NOT NULL,
  agent TEXT NOT NULL,
  instance_key TEXT NOT NULL,
  type TEXT NOT NULL,
  turn_id TEXT,
  trace_id TEXT,
  event TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runtime_events_instance ON runtime_events (swarm, agent, instance_key, cursor);
CREATE INDEX IF NOT EXISTS runtime_events_turn ON runtime_events (swarm, turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS runtime_events_trace ON runtime_events (swarm, trace_id);
CREATE TABLE IF NOT EXISTS approvals (
  swarm TEXT NOT NULL,
  id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  request TEXT NOT NULL,
  requested_at INTEGER NOT NULL,
  decision TEXT,
  applied INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (swarm, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS approvals_event ON approvals (swarm, event_id);
CREATE INDEX IF NOT EXISTS approvals_pending ON approvals (swarm, requested_at) WHERE decision IS NULL;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;
