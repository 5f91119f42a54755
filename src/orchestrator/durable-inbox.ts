/**
 * The durable inbox of one instance: one JSON file per accepted event under `instancePaths(...).inbox`,
 * written and fsynced (file and directory) before the event is acknowledged, removed when its turn
 * commits. File names sort in acceptance order, so a restarted orchestrator redelivers FIFO. A file
 * that cannot be parsed was never acknowledged (the write tore before its fsync) and is skipped.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
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
  /** File name inside the inbox directory. */
  file: string;
}

interface StoredEntry {
  event: AgentEvent;
  crashes: number;
  acceptedAt: number;
}

let sequence = 0;

function writeDurably(path: string, text: string): void {
  const fd = openSync(path, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export class DurableInbox {
  private dirReady = false;

  constructor(readonly dir: string) {}

  /** Persists the event; returns once it is on disk (the caller may acknowledge it then). */
  accept(options: { event: AgentEvent; now: number }): InboxEntry {
    this.ensureDir();
    sequence = (sequence + 1) % 1_000_000;
    const file = `${String(options.now).padStart(15, "0")}-${String(sequence).padStart(6, "0")}-${options.event.id.replace(/[^A-Za-z0-9_-]/g, "_")}.json`;
    const stored: StoredEntry = { event: options.event, crashes: 0, acceptedAt: options.now };
    writeDurably(join(this.dir, file), JSON.stringify(stored));
    this.syncDir();
    return { event: options.event, crashes: 0, deliveries: 0, acceptedAt: options.now, file };
  }

  /** Rewrites the entry (its crash count) atomically. */
  update(entry: InboxEntry): void {
    this.ensureDir();
    const stored: StoredEntry = { event: entry.event, crashes: entry.crashes, acceptedAt: entry.acceptedAt };
    const temporary = join(this.dir, `.${entry.file}.tmp`);
    writeDurably(temporary, JSON.stringify(stored));
    renameSync(temporary, join(this.dir, entry.file));
    this.syncDir();
  }

  remove(entry: InboxEntry): void {
    try {
      unlinkSync(join(this.dir, entry.file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }

  /** Every stored entry in acceptance order, plus the names of files that could not be read. */
  load(): { entries: InboxEntry[]; unreadable: string[] } {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((name) => name.endsWith(".json") && !name.startsWith(".")).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { entries: [], unreadable: [] };
      throw error;
    }
    const entries: InboxEntry[] = [];
    const unreadable: string[] = [];
    for (const file of names) {
      try {
        const stored = JSON.parse(readFileSync(join(this.dir, file), "utf8")) as StoredEntry;
        if (typeof stored.event?.id !== "string" || typeof stored.event.agent !== "string") throw new Error("not an inbox entry");
        entries.push({ event: stored.event, crashes: stored.crashes ?? 0, deliveries: stored.crashes ?? 0, acceptedAt: stored.acceptedAt, file });
      } catch {
        unreadable.push(file);
      }
    }
    return { entries, unreadable };
  }

  private ensureDir(): void {
    if (this.dirReady) return;
    mkdirSync(this.dir, { recursive: true });
    this.dirReady = true;
  }

  private syncDir(): void {
    const fd = openSync(this.dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
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
