/**
 * Where an instance keeps its files under the state root (SPEC §5):
 * `workspaces/<swarm instanceKey>/instances/<agent>/<instanceKey>/`, with file-system-safe names.
 */
import { join } from "node:path";
import { homedir } from "node:os";

export function defaultStateRoot(env: Record<string, string | undefined> = process.env): string {
  return env.GOONDAN_STATE_ROOT ?? join(homedir(), ".goondan");
}

/** Keeps letters, digits, `-`, `_` and `.`; everything else becomes `%XX` so distinct keys stay distinct. */
export function safeName(name: string): string {
  const encoded = name.replace(/[^A-Za-z0-9_.-]/g, (char) => `%${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return encoded === "." || encoded === ".." ? encoded.replace(/\./g, "%2e") : encoded;
}

export interface InstancePaths {
  root: string;
  /** The tools' workdir. */
  workdir: string;
  base: string;
  events: string;
  runtimeEvents: string;
  state: string;
  results: string;
  inbox: string;
}

export function instancePaths(options: { stateRoot: string; swarmInstanceKey: string; agent: string; instanceKey: string }): InstancePaths {
  const root = join(options.stateRoot, "workspaces", safeName(options.swarmInstanceKey), "instances", safeName(options.agent), safeName(options.instanceKey));
  return {
    root,
    workdir: join(root, "workdir"),
    base: join(root, "base.jsonl"),
    events: join(root, "events.jsonl"),
    runtimeEvents: join(root, "runtime-events.jsonl"),
    state: join(root, "extension-state.json"),
    results: join(root, "results.jsonl"),
    inbox: join(root, "inbox"),
  };
}
