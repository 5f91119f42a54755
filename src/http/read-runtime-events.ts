/**
 * Reads an instance's `runtime-events.jsonl` (written by its agent child) for the HTTP API: every
 * parseable line in order, the last `limit` when asked; a torn last line is counted, not fatal.
 */
import { existsSync, readFileSync } from "node:fs";
import type { JsonValue } from "../shared/json.ts";

export function readRuntimeEvents(options: { file: string; limit?: number }): { events: JsonValue[]; skipped: number } | undefined {
  if (!existsSync(options.file)) return undefined;
  const events: JsonValue[] = [];
  let skipped = 0;
  for (const line of readFileSync(options.file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      events.push(JSON.parse(line) as JsonValue);
    } catch {
      skipped++;
    }
  }
  return { events: options.limit ? events.slice(-options.limit) : events, skipped };
}
