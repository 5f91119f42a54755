/**
 * `extension-state.json`: one JSON object keyed by extension name, persisted per instance. `set` writes the
 * whole file atomically so a crash leaves either the old or the new state.
 */
import { existsSync, readFileSync } from "node:fs";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { writeFileAtomic } from "../conversation/jsonl-file.ts";

export class ExtensionStateFile {
  private state: JsonObject;
  readonly corrupt: boolean;

  constructor(private readonly file: string) {
    let state: JsonObject = {};
    let corrupt = false;
    if (existsSync(file)) {
      try {
        const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) state = parsed as JsonObject;
      } catch {
        corrupt = true;
      }
    }
    this.state = state;
    this.corrupt = corrupt;
  }

  get(name: string): JsonValue | undefined {
    return this.state[name];
  }

  async set(name: string, value: JsonValue): Promise<void> {
    this.state = { ...this.state, [name]: value };
    writeFileAtomic(this.file, `${JSON.stringify(this.state, null, 2)}\n`);
  }
}
