/**
 * The durable inbox of one instance: an append-only journal (`inbox/journal.jsonl`) of `accept`, `crash`,
 * `reply` and `done` records. Every event is written to the journal (write(2), so it survives a crash of any
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
 * result, or a reply handed over twice, which the agent keeps once); a crash count is synced, and so is a
 * `reply` held for the instance while it has no child (`HeldReply`). Replaying the journal gives the unanswered entries in acceptance order;
 * a torn last line was never acknowledged and is skipped. The journal is truncated once nothing is left
 * unanswered and it holds more than `truncateBytes`, and rewritten with only the unanswered entries (write,
 * sync, rename) once it grows past `compactBytes` while some always remain.
 */
import { closeSync, fdatasyncSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../../protocol/agent-event.ts";
import type { ParentToChild } from "../../protocol/ipc-messages.ts";
import { safeName } from "../../shared/state-paths.ts";

export interface InboxEntry {
  event: AgentEvent;
  /** Times the child crashed with this event in flight (persisted; drives the poison decision). */
  crashes: number;
  /** Deliveries made (in memory; the next delivery's attempt is `deliveries + 1`). */
  deliveries: number;
  /**
   * How the child died with this event in flight the last time (persisted with the crash count), e.g. "killed
   * by SIGSEGV"; cleared when a deliberate stop cut a later delivery short. The next delivery passes it on.
   */
  lastCrash?: string;
  acceptedAt: number;
}

/**
 * A reply to a request this instance made, held while the instance has no child to hand it to
 * (reply-backlog.ts): journaled (and synced) until it is handed over, so an orchestrator restart keeps it.
 * `deadline`: the request's, after which it is dropped.
 */
export interface HeldReply {
  agent: string;
  instanceKey: string;
  reply: ParentToChild["delegate_result"];
  deadline: number;
}

type JournalRecord =
  | { op: "accept"; event: AgentEvent; at: number }
  | { op: "crash"; id: string; crashes: number; why?: string }
  | { op: "reply"; id: string; agent: string; instanceKey: string; reply: HeldReply["reply"]; deadline: number | null }
  | { op: "done"; id: string };

const replyRecordId = (correlationId: string): string => `reply:${correlationId}`;

export const JOURNAL_FILE = "journal.jsonl";

function crashRecord(entry: InboxEntry): JournalRecord {
  return { op: "crash", id: entry.event.id, crashes: entry.crashes, ...(entry.lastCrash === undefined ? {} : { why: entry.lastCrash }) };
}

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
  /** Unanswered entries (their accept record and last crash record) and held replies, for compaction. */
  private readonly open = new Map<string, { accept: JournalRecord; crash?: JournalRecord }>();
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
    this.open.set(options.event.id, { accept });
    this.dirty = true;
    return { event: options.event, crashes: 0, deliveries: 0, acceptedAt: options.now };
  }

  sync(): void {
    if (!this.dirty || this.fd === undefined) return;
    fdatasyncSync(this.fd);
    this.dirty = false;
  }

  /** Persists the entry's crash count and how it crashed. */
  update(entry: InboxEntry): void {
    const crash = crashRecord(entry);
    this.write(crash);
    const open = this.open.get(entry.event.id);
    if (open) open.crash = crash;
    this.dirty = true;
    this.sync();
  }

  remove(entry: InboxEntry): void {
    this.closeRecord(entry.event.id);
  }

  /** Journals and syncs a reply held for this instance (see `HeldReply`). */
  holdReply(held: HeldReply): void {
    const { agent, instanceKey, reply, deadline } = held;
    const record: JournalRecord = { op: "reply", id: replyRecordId(reply.correlationId), agent, instanceKey, reply, deadline: Number.isFinite(deadline) ? deadline : null };
    this.write(record);
    this.open.set(record.id, { accept: record });
    this.dirty = true;
    this.sync();
  }

  /** The held reply was handed to the child, or dropped. */
  releaseReply(correlationId: string): void {
    this.closeRecord(replyRecordId(correlationId));
  }

  private closeRecord(id: string): void {
    if (!this.open.delete(id)) return;
    this.write({ op: "done", id });
    if (this.open.size === 0 && this.fd !== undefined) {
      if (this.bytes <= this.truncateBytes) return;
      // Nothing unanswered: start the journal afresh (a lost truncate only replays accept+done pairs).
      ftruncateSync(this.fd, 0);
      this.bytes = 0;
    } else if (this.bytes > this.compactBytes) {
      this.compact();
    }
  }

  /** Every unanswered entry in acceptance order, the held replies, and how many journal lines could not be read. */
  load(): { entries: InboxEntry[]; replies: HeldReply[]; unreadable: number } {
    let text: string;
    try {
      text = readFileSync(join(this.dir, JOURNAL_FILE), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], replies: [], unreadable: 0 };
      throw error;
    }
    const entries = new Map<string, InboxEntry>();
    const replies = new Map<string, Extract<JournalRecord, { op: "reply" }>>();
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
        if (entry) {
          entry.crashes = entry.deliveries = record.crashes;
          if (typeof record.why === "string") entry.lastCrash = record.why;
          else delete entry.lastCrash;
        }
      } else if (record.op === "reply") {
        replies.set(record.id, record);
      } else if (record.op === "done") {
        entries.delete(record.id);
        replies.delete(record.id);
      }
    }
    for (const entry of entries.values()) {
      this.open.set(entry.event.id, { accept: { op: "accept", event: entry.event, at: entry.acceptedAt }, ...(entry.crashes > 0 ? { crash: crashRecord(entry) } : {}) });
    }
    for (const record of replies.values()) this.open.set(record.id, { accept: record });
    this.bytes = Buffer.byteLength(text);
    const held = [...replies.values()].map(({ agent, instanceKey, reply, deadline }) => ({ agent, instanceKey, reply, deadline: deadline ?? Number.POSITIVE_INFINITY }));
    return { entries: [...entries.values()], replies: held, unreadable };
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
    const lines = [...this.open.values()].map(({ accept, crash }) => `${JSON.stringify(accept)}\n${crash ? `${JSON.stringify(crash)}\n` : ""}`).join("");
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
