/**
 * The names an instance directory records about itself: the agent and instance key written on each line of
 * its `runtime-events.jsonl` and in the events of its `inbox/journal.jsonl`. They give back the key of a
 * directory whose name cannot be read back (a bounded safeName, or a name of the old ambiguous mapping).
 * Only the first MAX_SCAN_BYTES of each file are read; unreadable files and lines are skipped.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { basename, join } from "node:path";
import { decodeSafeName, safeName } from "./safe-name.ts";

const MAX_SCAN_BYTES = 1024 * 1024;

function headLines(file: string): string[] {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buffer = Buffer.alloc(MAX_SCAN_BYTES);
    const length = readSync(fd, buffer, 0, MAX_SCAN_BYTES, 0);
    return buffer.subarray(0, length).toString("utf8").split("\n");
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Distinct agent names and instance keys recorded in an instance directory, in the order first seen. */
export function recordedNames(instanceDir: string): { agents: string[]; instanceKeys: string[] } {
  const agents = new Set<string>();
  const instanceKeys = new Set<string>();
  for (const line of headLines(join(instanceDir, "runtime-events.jsonl"))) {
    const record = parse(line);
    if (typeof record?.agent === "string") agents.add(record.agent);
    if (typeof record?.instanceKey === "string") instanceKeys.add(record.instanceKey);
  }
  for (const line of headLines(join(instanceDir, "inbox", "journal.jsonl"))) {
    const event = parse(line)?.event as Record<string, unknown> | undefined;
    if (typeof event?.instanceKey === "string") instanceKeys.add(event.instanceKey);
  }
  return { agents: [...agents], instanceKeys: [...instanceKeys] };
}

/** The instance key an instance directory stands for: read from its name, else from its records, else its name. */
export function instanceKeyOfDir(instanceDir: string): string {
  const name = basename(instanceDir);
  return decodeSafeName(name) ?? recordedNames(instanceDir).instanceKeys.find((key) => safeName(key) === name) ?? name;
}

/** The agent name, or swarm instance key, a directory name stands for (these are never long enough to be bounded). */
export function nameOfDir(name: string): string {
  return decodeSafeName(name) ?? name;
}
