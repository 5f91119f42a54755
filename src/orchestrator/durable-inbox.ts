/**
 * The durable inbox of one instance: an append-only journal (`inbox/journal.jsonl`) of `accept`, `crash`
 * and `done` records. Every event is written to the journal (write(2), so it survives a crash of any
 * process, the child's or the orchestrator's, kill -9 included) before it is acknowledged. Whether it is
 * also fdatasynced first (surviving a machine crash) depends on where it came from — `syncPolicyFor`:
 * - events from outside (HTTP API, `--input`, connectors) and agent `send`s: fdatasynced before they are
 *   acknowledged (`accept`, or `append` + `sync` when the caller overlaps delivery with the sync). Nobody
 *   upstream would ask again: the acknowledgement is the only copy's promise. (A send's sender, and an
 *   `async: true` requester, may commit its turn before the callee runs, so those are synced too.)
 * - agent-to-agent requests awaited in the requester's turn: written, not synced. The requester's own turn stays uncommitted (its own
 *   event unanswered in its own inbox) until the reply arrives, and that chain ends at an outside event that
 *   was synced; after a machine crash the outermost turn runs again and issues the request again. This
 *   saves an fdatasync (~300 µs on ext4) per delegation hop (bench/delegate-overhead.ts prints both paths).
 * `done` needs no sync (losing it only means a redelivery, which the agent answers from its stored
 * result); a crash count is synced. Replaying the journal gives the unanswered entries in acceptance order;
 * a torn last line was never acknowledged and is skipped. The journal is truncated once nothing is left
 * unanswered and it holds more than `truncateBytes`, and rewritten with only the unanswered entries (write,
 * sync, rename) once it grows past `compactBytes` while some always remain.
 */
import { closeSync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../ipc/protocol.ts";
import { safeName } from "../shared/state-paths.ts";

export interface InboxEntry {
  event: AgentEvent;
  /** Times the child crashed with this event in flight (persisted; drives the poison decision). */
  crashes: number;
  /** Deliveries made (in memory; the next delivery's attempt is `deliveries + 1`). */
  deliveries: number;
  acceptedAt: number;
}

type JournalRecord = { op: "accept"; event: AgentEvent; at: number } | { op: "crash"; id: string; crashes: number } | { op: "done"; id: string };

export const JOURNAL_FILE = "journal.jsonl";

/** `fdatasync`: on disk before it is acknowledged; `write`: in the journal (page cache) before it is. */
export type SyncPolicy = "fdatasync" | "write";

/**
 * The sync policy of an event by its source (see the header): only an agent-to-agent request whose
 * requester waits for the reply in the same turn skips fdatasync (`async: true` requests let the
 * requester's turn commit first, so they are synced like outside events).
 */
export function syncPolicyFor(options: { event: Pick<AgentEvent, "type" | "source">; requesterWaits: boolean }): SyncPolicy {
  const { event } = options;
  return event.source.kind === "agent" && event.type === "agent.request" && options.requesterWaits ? "write" : "fdatasync";
}

export class DurableInbox {
  private fd: number | undefined;
  /** Unanswered entries: their accept record and crash count, for compaction. */
  private readonly open = new Map<string, { accept: JournalRecord; crashes: number }>();
  private dirty = false;
  private bytes = 0;
  private readonly compactBytes: number;
  private readonly truncateBytes: number;

  /**
   * `compactBytes`: rewrite the journal past this size (default 1 MiB). `truncateBytes`: empty it once
   * nothing is unanswered and it is past this size (default 64 KiB; a truncate per answered event costs a
   * file-system journal commit on ext4).
   */
  constructor(
    readonly dir: string,
    options: { compactBytes?: number; truncateBytes?: number } = {},
  ) {
    this.compactBytes = options.compactBytes ?? 1024 * 1024;
    this.truncateBytes = options.truncateBytes ?? 64 * 1024;
  }

  /** Appends and syncs: the event is durable when this returns. */
  accept(options: { event: AgentEvent; now: number }): InboxEntry {
    const entry = this.append(options);
    this.sync();
    return entry;
  }

  /** Appends without syncing; call `sync()` before acknowledging the event. */
  append(options: { event: AgentEvent; now: number }): InboxEntry {
    const accept: JournalRecord = { op: "accept", event: options.event, at: options.now };
    this.write(accept);
    this.open.set(options.event.id, { accept, crashes: 0 });
    this.dirty = true;
    return { event: options.event, crashes: 0, deliveries: 0, acceptedAt: options.now };
  }

  sync(): void {
    if (!this.dirty || this.fd === undefined) return;
    fdatasyncSync(this.fd);
    this.dirty = false;
  }

  /** Persists the entry's crash count. */
  update(entry: InboxEntry): void {
    this.write({ op: "crash", id: entry.event.id, crashes: entry.crashes });
    const open = this.open.get(entry.event.id);
    if (open) open.crashes = entry.crashes;
    this.dirty = true;
    this.sync();
  }

  remove(entry: InboxEntry): void {
    if (!this.open.delete(entry.event.id)) return;
    this.write({ op: "done", id: entry.event.id });
    if (this.open.size === 0 && this.fd !== undefined) {
      if (this.bytes <= this.truncateBytes) return;
      // Nothing unanswered: start the journal afresh (a lost truncate only replays accept+done pairs).
      ftruncateSync(this.fd, 0);
      this.bytes = 0;
    } else if (this.bytes > this.compactBytes) {
      this.compact();
    }
  }

  /** Every unanswered entry in acceptance order, and how many journal lines could not be read. */
  load(): { entries: InboxEntry[]; unreadable: number } {
    let text: string;
    try {
      text = readFileSync(join(this.dir, JOURNAL_FILE), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], unreadable: 0 };
      throw error;
    }
    const entries = new Map<string, InboxEntry>();
    let unreadable = 0;
    for (const line of text.split("\n")) {
      if (line === "") continue;
      let record: JournalRecord;
      try {
        record = JSON.parse(line) as JournalRecord;
      } catch {
        unreadable++;
        continue;
      }
      if (record.op === "accept" && typeof record.event?.id === "string") entries.set(record.event.id, { event: record.event, crashes: 0, deliveries: 0, acceptedAt: record.at });
      else if (record.op === "crash") {
        const entry = entries.get(record.id);
        if (entry) entry.crashes = entry.deliveries = record.crashes;
      } else if (record.op === "done") entries.delete(record.id);
    }
    for (const [id, entry] of entries) this.open.set(id, { accept: { op: "accept", event: entry.event, at: entry.acceptedAt }, crashes: entry.crashes });
    this.bytes = Buffer.byteLength(text);
    return { entries: [...entries.values()], unreadable };
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private write(record: JournalRecord): void {
    const fd = this.fd ?? this.openJournal();
    const line = `${JSON.stringify(record)}\n`;
    writeSync(fd, line);
    this.bytes += Buffer.byteLength(line);
  }

  private compact(): void {
    const lines = [...this.open].map(([id, { accept, crashes }]) => `${JSON.stringify(accept)}\n${crashes > 0 ? `${JSON.stringify({ op: "crash", id, crashes })}\n` : ""}`).join("");
    const temporary = join(this.dir, `.${JOURNAL_FILE}.tmp`);
    const fd = openSync(temporary, "w", 0o600);
    try {
      writeSync(fd, lines);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, join(this.dir, JOURNAL_FILE));
    this.close();
    this.openJournal();
    this.bytes = Buffer.byteLength(lines);
  }

  private openJournal(): number {
    mkdirSync(this.dir, { recursive: true });
    const fd = openSync(join(this.dir, JOURNAL_FILE), "a", 0o600);
    // The journal's directory entry must survive a crash too: sync the directory once, when it is opened.
    const dirFd = openSync(this.dir, "r");
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    this.fd = fd;
    return fd;
  }
}

/** The inbox directories of every instance of a swarm under the state root: `instances/<agent>/<key>/inbox`. */
export function findInboxDirs(options: { stateRoot: string; swarmInstanceKey: string }): string[] {
  const instancesDir = join(options.stateRoot, "workspaces", safeName(options.swarmInstanceKey), "instances");
  const dirs: string[] = [];
  const list = (dir: string): string[] => {
    try {
      return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    } catch {
      return [];
    }
  };
  for (const agent of list(instancesDir)) {
    for (const key of list(join(instancesDir, agent))) dirs.push(join(instancesDir, agent, key, "inbox"));
  }
  return dirs;
}
