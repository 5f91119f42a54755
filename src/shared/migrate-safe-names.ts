/**
 * Renames the directories under `<state root>/workspaces/` that the old mapping named (`%` and as many hex
 * digits as the code unit needed, letters of both cases kept) to their safeName (safe-name.ts), so that an
 * upgraded goondan finds the conversations, inboxes and workspaces it had. Run it once at start, before
 * anything opens an instance directory; it is idempotent (a current name never contains `%` or an uppercase
 * letter, so it is never touched twice) and safe against a crash half-way (each directory moves with one
 * rename(2), children before their parent, so a second run takes up where the first stopped).
 *
 * The old names were ambiguous (`%ac00` is `가`, or `¬` then `00`), so a directory's key is taken, in order,
 * from what it records (the instance key and agent written in its runtime events and inbox journal, when the
 * old mapping spells them as the directory's name), else from the only way to read its name. A directory
 * whose name reads more than one way and that records nothing, or whose new name is taken, stays where it is
 * and is reported in `skipped`.
 */
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { recordedNames } from "./recorded-names.ts";
import { safeName } from "./safe-name.ts";
import { subdirectories } from "./subdirectories.ts";

export interface SafeNameMigration {
  moved: { from: string; to: string }[];
  skipped: { dir: string; reason: string; candidates?: string[] }[];
}

const OLD_VERBATIM = /^[A-Za-z0-9_.-]$/;

/** The old mapping, kept to check a recorded key against a directory name. */
export function legacySafeName(key: string): string {
  const encoded = key.replace(/[^A-Za-z0-9_.-]/g, (char) => `%${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return encoded === "." || encoded === ".." ? encoded.replace(/\./g, "%2e") : encoded;
}

/** Up to `limit` keys whose old name is `name` (the old mapping was not injective, so there may be several). */
export function legacyReadings(name: string, limit = 2): string[] {
  if (name === "%2e" || name === "%2e%2e") return [name === "%2e" ? "." : ".."];
  // The steps that can start at each index: [code unit read, index after it].
  const steps = (index: number): [string, number][] => {
    const char = name[index] as string;
    if (OLD_VERBATIM.test(char)) return [[char, index + 1]];
    if (char !== "%") return [];
    const found: [string, number][] = [];
    for (const digits of [2, 3, 4]) {
      const hex = name.slice(index + 1, index + 1 + digits);
      if (hex.length !== digits || !/^[0-9a-f]+$/.test(hex)) continue;
      const code = Number.parseInt(hex, 16);
      const unit = String.fromCharCode(code);
      // Exactly as the old encoder spelled it, and a code unit it escaped.
      if (code.toString(16).padStart(2, "0") === hex && !OLD_VERBATIM.test(unit))
        found.push([unit, index + 1 + digits]);
    }
    return found;
  };
  // How many readings (capped at `limit`) the rest of the name has from each index, end first.
  const counts = new Array<number>(name.length + 1).fill(0);
  counts[name.length] = 1;
  for (let index = name.length - 1; index >= 0; index--) {
    counts[index] = Math.min(
      limit,
      steps(index).reduce((sum, [, next]) => sum + (counts[next] as number), 0),
    );
  }
  const readings: string[] = [];
  const walk = (index: number, key: string): void => {
    if (readings.length >= limit) return;
    if (index === name.length) {
      readings.push(key);
      return;
    }
    for (const [unit, next] of steps(index)) if ((counts[next] as number) > 0) walk(next, key + unit);
  };
  if ((counts[0] as number) > 0) walk(0, "");
  return readings;
}

function migrateOne(options: { parent: string; name: string; recorded: string[]; report: SafeNameMigration }): void {
  const { parent, name, report } = options;
  if (!/[%A-Z]/.test(name)) return; // a current name (old and new spell [a-z0-9_.-] alike)
  const dir = join(parent, name);
  let key = options.recorded.find((recorded) => legacySafeName(recorded) === name);
  if (key === undefined) {
    const readings = legacyReadings(name);
    if (readings.length !== 1) {
      report.skipped.push(
        readings.length === 0
          ? { dir, reason: "not a name the old mapping makes" }
          : { dir, reason: "the old name reads several ways and the directory records no key", candidates: readings },
      );
      return;
    }
    key = readings[0] as string;
  }
  const target = join(parent, safeName(key));
  if (target === dir) return;
  if (existsSync(target)) {
    report.skipped.push({ dir, reason: `${target} already exists` });
    return;
  }
  renameSync(dir, target);
  report.moved.push({ from: dir, to: target });
}

export function migrateSafeNames(options: { stateRoot: string }): SafeNameMigration {
  const report: SafeNameMigration = { moved: [], skipped: [] };
  const workspaces = join(options.stateRoot, "workspaces");
  for (const swarm of subdirectories(workspaces)) {
    const instances = join(workspaces, swarm, "instances");
    for (const agent of subdirectories(instances)) {
      const agentDir = join(instances, agent);
      for (const key of subdirectories(agentDir)) {
        migrateOne({ parent: agentDir, name: key, recorded: recordedNames(join(agentDir, key)).instanceKeys, report });
      }
      const agents = subdirectories(agentDir).flatMap((key) => recordedNames(join(agentDir, key)).agents);
      migrateOne({ parent: instances, name: agent, recorded: agents, report });
    }
    migrateOne({ parent: workspaces, name: swarm, recorded: [], report });
  }
  return report;
}
