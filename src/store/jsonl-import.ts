/**
 * The one-time import of a state root written by goondan before the store existed: per instance directory
 * (`workspaces/<swarm>/instances/<agent>/<key>/`), the conversation (`base.jsonl` plus the `events.jsonl` of a turn
 * in progress), the results waiting to be shown (`pending-results.jsonl`, and replies the inbox journal still held),
 * the extensions' state (`extension-state.json`), the runtime events (`runtime-events.jsonl`) and the accepted,
 * unanswered events of the inbox journal (answered when `results.jsonl` holds their turn's result). Each imported
 * file is then moved into `imported-jsonl/` next to it (kept for inspection, never read again); the workdir stays.
 * Torn or unreadable lines are skipped and counted, as the old readers did.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../protocol/agent-event.ts";
import type { Message, MessageEvent, PendingResult } from "../protocol/conversation.ts";
import type { RuntimeEvent } from "../protocol/runtime-event.ts";
import type { Reply, TurnOutcome } from "../protocol/turn-outcome.ts";
import { readJsonl } from "../shared/jsonl-file.ts";
import type { JsonValue } from "../shared/json.ts";
import { instanceKeyOfDir, nameOfDir } from "../shared/recorded-names.ts";
import { subdirectories } from "../shared/subdirectories.ts";
import type { SqliteStore } from "./sqlite/sqlite-store.ts";
import type { InstanceRef } from "./store.ts";

const OLD_FILES = [
  "base.jsonl",
  "events.jsonl",
  "results.jsonl",
  "pending-results.jsonl",
  "extension-state.json",
  "runtime-events.jsonl",
];

type JournalRecord =
  | { op: "accept"; event: AgentEvent; at: number }
  | { op: "crash"; id: string; crashes: number; why?: string }
  | { op: "reply"; id: string; reply: Reply }
  | { op: "done"; id: string };

export interface JsonlImport {
  instances: number;
  events: number;
  skippedLines: number;
}

/**
 * Imports every instance directory of the old layout under `stateRoot` into `store`, each made durable (the store
 * flushed) before its files are moved aside; a no-op when there is none.
 */
export function importJsonlLayout(options: { stateRoot: string; store: SqliteStore }): JsonlImport {
  const totals: JsonlImport = { instances: 0, events: 0, skippedLines: 0 };
  const workspaces = join(options.stateRoot, "workspaces");
  for (const swarmDir of subdirectories(workspaces)) {
    const instancesDir = join(workspaces, swarmDir, "instances");
    for (const agentDir of subdirectories(instancesDir)) {
      for (const keyDir of subdirectories(join(instancesDir, agentDir))) {
        const dir = join(instancesDir, agentDir, keyDir);
        if (!OLD_FILES.some((file) => existsSync(join(dir, file))) && !existsSync(join(dir, "inbox", "journal.jsonl")))
          continue;
        const ref: InstanceRef = {
          swarm: nameOfDir(swarmDir),
          agent: nameOfDir(agentDir),
          instanceKey: instanceKeyOfDir(dir),
        };
        const imported = importInstance({ dir, ref, store: options.store });
        totals.instances += 1;
        totals.events += imported.events;
        totals.skippedLines += imported.skippedLines;
      }
    }
  }
  return totals;
}

function importInstance(options: { dir: string; ref: InstanceRef; store: SqliteStore }): {
  events: number;
  skippedLines: number;
} {
  const { dir, ref, store } = options;
  let skippedLines = 0;
  const read = <T>(file: string): T[] => {
    const result = readJsonl<T>(join(dir, file));
    skippedLines += result.skipped.length;
    return result.records;
  };
  const base = read<Message>("base.jsonl");
  const turnInProgress = read<{ event: MessageEvent }>("events.jsonl").flatMap((line) =>
    typeof line?.event?.type === "string" ? [line.event] : [],
  );
  const results = new Map(read<TurnOutcome>("results.jsonl").map((result) => [result.eventId, result]));
  const pending: PendingResult[] = read<PendingResult>("pending-results.jsonl");
  const journal = readJournal(join(dir, "inbox", "journal.jsonl"));
  skippedLines += journal.skipped;
  pending.push(...journal.heldReplies);

  void store.commit(ref, {
    changes: [...base.map((message) => ({ type: "append" as const, message })), ...turnInProgress],
    added: pending,
    extensionState: readExtensionState(join(dir, "extension-state.json")),
  });
  store.appendRuntimeEvents(ref.swarm, read<RuntimeEvent>("runtime-events.jsonl"));
  for (const entry of journal.unanswered) {
    void store.accept(ref.swarm, entry.event, entry.at);
    for (let crash = 0; crash < entry.crashes; crash++)
      store.recordInterrupted(ref.swarm, entry.event.id, entry.why ?? "it crashed (before the upgrade)");
    if (entry.crashes > 0 && entry.why === undefined) store.recordInterrupted(ref.swarm, entry.event.id);
    const result = results.get(entry.event.id);
    if (result !== undefined)
      void store.answer(ref.swarm, entry.event.id, { ...result, agent: ref.agent, instanceKey: ref.instanceKey });
  }
  store.flush();
  moveAside(dir);
  return { events: journal.unanswered.length, skippedLines };
}

function readJournal(file: string): {
  unanswered: { event: AgentEvent; at: number; crashes: number; why?: string }[];
  heldReplies: Reply[];
  skipped: number;
} {
  const { records, skipped } = readJsonl<JournalRecord>(file);
  const open = new Map<string, { event: AgentEvent; at: number; crashes: number; why?: string }>();
  const replies = new Map<string, Reply>();
  for (const record of records) {
    if (record.op === "accept") open.set(record.event.id, { event: record.event, at: record.at, crashes: 0 });
    else if (record.op === "crash") {
      const entry = open.get(record.id);
      if (entry)
        Object.assign(entry, { crashes: record.crashes, ...(record.why === undefined ? {} : { why: record.why }) });
    } else if (record.op === "reply") replies.set(record.id, record.reply);
    else if (record.op === "done") {
      open.delete(record.id);
      replies.delete(record.id);
    }
  }
  return { unanswered: [...open.values()], heldReplies: [...replies.values()], skipped: skipped.length };
}

function readExtensionState(file: string): Record<string, JsonValue> {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, JsonValue>)
      : {};
  } catch {
    return {};
  }
}

function moveAside(dir: string): void {
  const aside = join(dir, "imported-jsonl");
  mkdirSync(aside, { recursive: true });
  for (const file of OLD_FILES) if (existsSync(join(dir, file))) renameSync(join(dir, file), join(aside, file));
  if (existsSync(join(dir, "inbox"))) renameSync(join(dir, "inbox"), join(aside, "inbox"));
}
