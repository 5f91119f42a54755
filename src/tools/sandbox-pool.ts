/**
 * The sandboxes of one process, one per profile (sandbox-profile.ts): the bash commands of an agent process
 * with the same network and file view share one PID namespace, as they always have; a profile with `own: true`
 * (each MCP server) gets a sandbox of its own, which its owner stops. And the one decision every caller makes
 * when the machine gives no namespace, by the `isolation` setting: `auto` runs the process as is (the caller
 * warns once), `required` refuses, `none` never asks.
 */
import { PidNamespaceSandbox, type SandboxProfile } from "./pid-namespace-sandbox.ts";

export type IsolationSetting = "auto" | "required" | "none";

const shared = new Map<string, PidNamespaceSandbox>();

/** The shared sandbox of this process for `profile`, started on first use; it ends with the process. */
export function sharedSandbox(profile: SandboxProfile): PidNamespaceSandbox {
  const key = JSON.stringify([
    profile.network ?? "none",
    profile.capabilities ?? "container",
    profile.hide,
    profile.keep,
  ]);
  let sandbox = shared.get(key);
  if (sandbox === undefined) {
    sandbox = new PidNamespaceSandbox(profile);
    shared.set(key, sandbox);
  }
  return sandbox;
}

export function isolationSetting(value: unknown): IsolationSetting {
  return value === "required" || value === "none" ? value : "auto";
}

export interface SandboxedCommand {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

export type SandboxDecision =
  | { kind: "isolated"; command: SandboxedCommand; description: string }
  | { kind: "unisolated"; command: SandboxedCommand; reason?: string }
  | { kind: "refused"; reason: string };

/** `command` wrapped into `sandbox` when `setting` asks, or as is, or refused, with the reason. */
export async function sandboxCommand(options: {
  sandbox: PidNamespaceSandbox;
  setting: IsolationSetting;
  command: SandboxedCommand;
  /** See PidNamespaceSandbox.enter. */
  passEnvironment?: boolean;
}): Promise<SandboxDecision> {
  const { setting, command } = options;
  if (setting === "none") return { kind: "unisolated", command };
  const entry = await options.sandbox.enter({ ...command, passEnvironment: options.passEnvironment === true });
  if (entry.isolated)
    return {
      kind: "isolated",
      command: { argv: entry.argv, cwd: "/", env: entry.env },
      description: entry.description,
    };
  return setting === "required"
    ? { kind: "refused", reason: entry.reason }
    : { kind: "unisolated", command, reason: entry.reason };
}
