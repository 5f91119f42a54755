/**
 * Where an instance keeps its files under the state root (SPEC §5):
 * `workspaces/<swarm instanceKey>/instances/<agent>/<instanceKey>/`, each level named by safeName
 * (safe-name.ts: injective and bounded).
 */
import { join } from "node:path";
import { homedir } from "node:os";
import { safeName } from "./safe-name.ts";

export { safeName } from "./safe-name.ts";

export function defaultStateRoot(env: Record<string, string | undefined> = process.env): string {
  return env.GOONDAN_STATE_ROOT ?? join(homedir(), ".goondan");
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

export function instancePaths(options: {
  stateRoot: string;
  swarmInstanceKey: string;
  agent: string;
  instanceKey: string;
}): InstancePaths {
  const root = join(
    options.stateRoot,
    "workspaces",
    safeName(options.swarmInstanceKey),
    "instances",
    safeName(options.agent),
    safeName(options.instanceKey),
  );
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

/**
 * The state root an instance's workdir lies under (the inverse of instancePaths), or undefined when `workdir`
 * is not laid out as one (a tool test's temporary directory).
 */
export function stateRootOfWorkdir(workdir: string): string | undefined {
  const parts = workdir.replace(/\/+$/, "").split("/");
  const n = parts.length;
  if (n < 7 || parts[n - 1] !== "workdir" || parts[n - 4] !== "instances" || parts[n - 6] !== "workspaces")
    return undefined;
  const root = parts.slice(0, n - 6).join("/");
  return root === "" ? undefined : root;
}
