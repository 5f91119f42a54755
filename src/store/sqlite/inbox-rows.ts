/**
 * The `inbox` table's rows: an accepted event kept once per swarm and id, read back as an InboxRecord, its crash
 * count and last crash, and the outcome that answers it (set once). The store calls these inside its write batch.
 */
import type { Database } from "bun:sqlite";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { TurnOutcome } from "../../protocol/turn-outcome.ts";
import type { InboxRecord } from "../store.ts";

type InboxRow = {
  event: string;
  accepted_at: number;
  crashes: number;
  last_crash: string | null;
  outcome: string | null;
};

const inboxRecordOf = (row: InboxRow): InboxRecord => ({
  event: JSON.parse(row.event) as AgentEvent,
  acceptedAt: row.accepted_at,
  crashes: row.crashes,
  ...(row.last_crash === null ? {} : { lastCrash: row.last_crash }),
  ...(row.outcome === null ? {} : { outcome: JSON.parse(row.outcome) as TurnOutcome }),
});

/** Keeps the event unless one with its id was accepted in the swarm before. */
export function insertInboxEvent(db: Database, swarm: string, event: AgentEvent, acceptedAt: number): void {
  db.query(
    "INSERT OR IGNORE INTO inbox (swarm, event_id, agent, instance_key, event, accepted_at) VALUES (:swarm, :id, :agent, :key, :event, :at)",
  ).run({
    swarm,
    id: event.id,
    agent: event.agent,
    key: event.instanceKey,
    event: JSON.stringify(event),
    at: acceptedAt,
  });
}

/** The event's record, or (with `unanswered`) only while no outcome answers it. */
export function selectInboxRecord(
  db: Database,
  swarm: string,
  eventId: string,
  options: { unanswered?: boolean } = {},
): InboxRecord | undefined {
  const row = db
    .query(
      `SELECT event, accepted_at, crashes, last_crash, outcome FROM inbox WHERE swarm = :swarm AND event_id = :id${options.unanswered ? " AND outcome IS NULL" : ""}`,
    )
    .get({ swarm, id: eventId }) as InboxRow | null;
  return row === null ? undefined : inboxRecordOf(row);
}

/**
 * The newest `limit` events of the swarm whose id starts with `prefix` (a surface that names its events, A2A's
 * `a2a_<task>`), answered or not, newest first: a range on the (swarm, event_id) key, as `newestInboxEventId`.
 */
export function selectInboxByPrefix(
  db: Database,
  swarm: string,
  query: { idPrefix: string; limit: number },
): InboxRecord[] {
  const rows = db
    .query(
      "SELECT event, accepted_at, crashes, last_crash, outcome FROM inbox WHERE swarm = :swarm AND event_id >= :prefix AND event_id < :end ORDER BY seq DESC LIMIT :limit",
    )
    .all({
      swarm,
      prefix: query.idPrefix,
      end: `${query.idPrefix}\uffff`,
      limit: Math.max(1, Math.floor(query.limit)),
    }) as InboxRow[];
  return rows.map(inboxRecordOf);
}

/** The swarm's events no outcome answers yet, in the order they were accepted. */
export function selectUnanswered(db: Database, swarm: string): InboxRecord[] {
  const rows = db
    .query(
      "SELECT event, accepted_at, crashes, last_crash, outcome FROM inbox WHERE swarm = :swarm AND outcome IS NULL ORDER BY seq",
    )
    .all({ swarm }) as InboxRow[];
  return rows.map(inboxRecordOf);
}

/** Counts a crash of the event's turn (`crash`, its reason), or clears the last crash (undefined). */
export function recordInboxCrash(db: Database, swarm: string, eventId: string, crash?: string): void {
  if (crash === undefined)
    db.query(
      "UPDATE inbox SET last_crash = NULL WHERE swarm = :swarm AND event_id = :id AND last_crash IS NOT NULL",
    ).run({ swarm, id: eventId });
  else
    db.query("UPDATE inbox SET crashes = crashes + 1, last_crash = :why WHERE swarm = :swarm AND event_id = :id").run({
      swarm,
      id: eventId,
      why: crash,
    });
}

/** Answers the event with its outcome, unless one answers it already. */
export function setInboxOutcome(db: Database, swarm: string, eventId: string, outcome: TurnOutcome): void {
  db.query(
    "UPDATE inbox SET outcome = :outcome, answered_at = :at WHERE swarm = :swarm AND event_id = :id AND outcome IS NULL",
  ).run({ swarm, id: eventId, outcome: JSON.stringify(outcome), at: Date.now() });
}

/** The greatest event id of the swarm with this prefix and length (ids that sort by time), if any. */
export function newestInboxEventId(
  db: Database,
  swarm: string,
  options: { prefix: string; length: number },
): string | undefined {
  // A range on the (swarm, event_id) key: no scan of the inbox, however long it grows.
  const row = db
    .query(
      "SELECT MAX(event_id) AS id FROM inbox WHERE swarm = :swarm AND event_id >= :prefix AND event_id < :end AND length(event_id) = :length",
    )
    .get({ swarm, prefix: options.prefix, end: `${options.prefix}\uffff`, length: options.length }) as {
    id: string | null;
  };
  return row.id ?? undefined;
}
