/**
 * How an Agent's instances are spread over processes (`spec.process`), with its defaults. `isolation: agent` (the
 * default, the seeds' "process per agent"): instances share up to `maxProcesses` processes of that agent (default 1),
 * each holding up to `maxInstancesPerProcess` (default 1000). `isolation: instance`: each instance has a process of
 * its own, for agents whose tools must not share memory; at most `maxProcesses` of them live at once (default 64).
 * `sandbox`: whether the process runs in its sandbox (supervision/agent-sandbox.ts): `auto` (default) where the
 * machine allows it, `required` or not at all, `none` never.
 */
export type AgentSandboxSetting = "auto" | "required" | "none";

export interface AgentProcessSpec {
  isolation: "agent" | "instance";
  /** Default auto. */
  sandbox?: AgentSandboxSetting;
  maxProcesses: number;
  /** 1 for `isolation: instance`. */
  maxInstancesPerProcess: number;
}

export const SHARED_PROCESS_DEFAULTS = { maxProcesses: 1, maxInstancesPerProcess: 1000 } as const;
export const OWN_PROCESS_DEFAULTS = { maxProcesses: 64 } as const;

export function normalizeAgentProcess(
  raw:
    | {
        isolation?: "agent" | "instance";
        maxProcesses?: number;
        maxInstancesPerProcess?: number;
        sandbox?: AgentSandboxSetting;
      }
    | undefined,
  /** Reports an issue at a path under the Agent document. */
  report: (path: string[], issue: { code: "E_CONFIG_PROCESS_CONFLICT"; message: string; suggestion: string }) => void,
): AgentProcessSpec {
  const isolation = raw?.isolation ?? "agent";
  const sandbox = raw?.sandbox ?? "auto";
  if (isolation === "agent")
    return {
      isolation,
      sandbox,
      maxProcesses: raw?.maxProcesses ?? SHARED_PROCESS_DEFAULTS.maxProcesses,
      maxInstancesPerProcess: raw?.maxInstancesPerProcess ?? SHARED_PROCESS_DEFAULTS.maxInstancesPerProcess,
    };
  if (raw?.maxInstancesPerProcess !== undefined && raw.maxInstancesPerProcess !== 1)
    report(["spec", "process", "maxInstancesPerProcess"], {
      code: "E_CONFIG_PROCESS_CONFLICT",
      message:
        "expected no maxInstancesPerProcess (or 1) with isolation: instance, which gives each instance its own process",
      suggestion: "remove maxInstancesPerProcess, or set isolation: agent to share processes",
    });
  return {
    isolation,
    sandbox,
    maxProcesses: raw?.maxProcesses ?? OWN_PROCESS_DEFAULTS.maxProcesses,
    maxInstancesPerProcess: 1,
  };
}

/** The agent's process spec, with the defaults when it has none. */
export function agentProcess(spec: { process?: AgentProcessSpec }): AgentProcessSpec {
  return spec.process ?? { isolation: "agent", sandbox: "auto", ...SHARED_PROCESS_DEFAULTS };
}

/** The live instances an agent may have at once: its processes times what each holds. */
export function agentInstanceSlots(spec: AgentProcessSpec): number {
  return spec.maxProcesses * spec.maxInstancesPerProcess;
}
