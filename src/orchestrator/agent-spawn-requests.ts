/**
 * How an agent instance's child is started: the agent entry's argv, an environment holding only what this
 * agent's own resources name (child-environment.ts) plus its Model provider's standard variables that are set
 * (config/provider-env.ts), and the validated bundle as a snapshot file (written once
 * per bundle, so a reload's children get the new one while older children keep theirs); for an agent whose
 * instances share processes (`spec.process.isolation: agent`), where they share them: instances started alike
 * (same agent, bundle and environment) go to the same hosts. What its sandbox (supervision/agent-sandbox.ts) leaves
 * in view of the state root: its instances' directory (all of the agent's when they share processes, else its own
 * instance's), and read-only the bundle snapshot; a cassette it records into lies outside it, or its directory is kept.
 */
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { agentInstanceSlots, agentProcess, type AgentProcessSpec } from "../config/agent-process.ts";
import type { Bundle } from "../config/types.ts";
import { providerEnvNames } from "../config/provider-env.ts";
import { agentModel, findResource, selectSwarm } from "../config/resolve.ts";
import { agentRequiredEnvNames } from "../config/value-source.ts";
import { agentChildArgv, agentHostArgv, BUNDLE_SNAPSHOT_ENV, RECORD_CASSETTE_ENV } from "../protocol/child-entry.ts";
import { instanceAddress } from "../protocol/agent-event.ts";
import type { Logger } from "../shared/logger.ts";
import { instancePaths, safeName } from "../shared/state-paths.ts";
import type { AgentSandboxRequest } from "../supervision/agent-sandbox.ts";
import { childEnvironment } from "../supervision/child-environment.ts";
import type { SpawnRequest } from "../supervision/process-spawner.ts";
import { writeBundleSnapshot } from "./bundle-snapshot-file.ts";

export interface AgentSpawnRequestsOptions {
  stateRoot: string;
  /** The environment children's variables are taken from. */
  env: Record<string, string | undefined>;
  /** Extra environment for every agent child (e.g. GOONDAN_RECORD_CASSETTE). */
  childEnv: Record<string, string>;
  logger: Logger;
}

/** What every spawn request of one agent shares under one bundle and generation (computed once, see `shared`). */
interface AgentShared {
  generation: number;
  swarm: string;
  process: AgentProcessSpec;
  env: Record<string, string>;
  /** The sandbox of an agent whose instances share processes (the same for all of them). */
  sandbox: AgentSandboxRequest | undefined;
  group: string | undefined;
}

export class AgentSpawnRequests {
  private snapshot: { bundle: Bundle; file: string } | undefined;
  /** Bumped for an agent by a reload that restarts it: its instances then start in new processes. */
  private readonly generations = new Map<string, number>();
  private specs: { bundle: Bundle; byAgent: Map<string, AgentProcessSpec> } | undefined;
  private kept: { bundle: Bundle; byAgent: Map<string, AgentShared> } | undefined;

  constructor(private readonly options: AgentSpawnRequestsOptions) {}

  /** The spawn request of one instance under the bundle now in force. */
  request(options: {
    bundle: Bundle;
    swarm: string;
    agent: string;
    instanceKey: string;
    idleSeconds: number;
  }): SpawnRequest {
    const { bundle, swarm, agent, instanceKey } = options;
    const shared = this.shared(bundle, swarm, agent);
    const process = shared.process;
    return {
      address: instanceAddress(agent, instanceKey),
      argv: agentChildArgv({ bundle: bundle.dir, swarm, agent, instanceKey, stateRoot: this.options.stateRoot }),
      env: shared.env,
      sandbox: shared.sandbox ?? this.sandbox({ bundle, swarm, agent, instanceKey, process, env: shared.env }),
      ...(shared.group !== undefined
        ? {
            share: {
              group: shared.group,
              label: agent,
              hostArgv: agentHostArgv(agent),
              maxProcesses: process.maxProcesses,
              idleMs: options.idleSeconds * 1000,
            },
          }
        : {}),
    };
  }

  /**
   * The agent's environment, sandbox and process group, worked out once per bundle, swarm and generation: a new
   * conversation's spawn request then costs no env scan, path hashing or digest.
   */
  private shared(bundle: Bundle, swarm: string, agent: string): AgentShared {
    if (this.kept?.bundle !== bundle) this.kept = { bundle, byAgent: new Map() };
    const generation = this.generations.get(agent) ?? 0;
    const found = this.kept.byAgent.get(agent);
    if (found !== undefined && found.generation === generation && found.swarm === swarm) return found;
    const env = {
      ...this.environment(bundle, agent),
      ...this.options.childEnv,
      [BUNDLE_SNAPSHOT_ENV]: this.snapshotFile(bundle),
    };
    const process = this.processSpec(bundle, agent);
    let sandbox: AgentSandboxRequest | undefined;
    let group: string | undefined;
    if (process.isolation === "agent") {
      sandbox = this.sandbox({ bundle, swarm, agent, instanceKey: undefined, process, env });
      // Instances share a process only when they would have been started alike: same bundle, same env.
      group = createHash("sha256")
        .update(JSON.stringify([agent, generation, bundle.dir, swarm, env, sandbox]))
        .digest("hex");
    }
    const made: AgentShared = { generation, swarm, process, env, sandbox, group };
    this.kept.byAgent.set(agent, made);
    return made;
  }

  /**
   * A reload restarts these agents (all when undefined): their instances start in new processes, which import the
   * files afresh (a process keeps the tool and extension modules it imported), and the old processes exit once empty.
   */
  renew(agents: readonly string[] | undefined, all: Iterable<string>): void {
    for (const agent of agents ?? all) this.generations.set(agent, (this.generations.get(agent) ?? 0) + 1);
  }

  /** The slot group an instance of this agent takes in the process pool (process-pool.ts). */
  slotGroup(bundle: Bundle, agent: string): { key: string; max: number; cheapStart: boolean } {
    const process = this.processSpec(bundle, agent);
    return process.isolation === "agent"
      ? { key: `agent:${agent}`, max: agentInstanceSlots(process), cheapStart: true }
      : { key: `own:${agent}`, max: process.maxProcesses, cheapStart: false };
  }

  /** Read for every slot decision and start: looked up once per bundle and agent. */
  private processSpec(bundle: Bundle, agent: string): AgentProcessSpec {
    if (this.specs?.bundle !== bundle) this.specs = { bundle, byAgent: new Map() };
    let spec = this.specs.byAgent.get(agent);
    if (spec === undefined) {
      const resource = findResource(bundle, "Agent", agent);
      spec = agentProcess(resource?.kind === "Agent" ? resource.spec : {});
      this.specs.byAgent.set(agent, spec);
    }
    return spec;
  }

  /** What the process's sandbox leaves in view of the state root. */
  private sandbox(options: {
    bundle: Bundle;
    swarm: string;
    agent: string;
    /** Undefined for an agent whose instances share processes: they all keep the agent's directory. */
    instanceKey: string | undefined;
    process: AgentProcessSpec;
    env: Record<string, string>;
  }): AgentSandboxRequest {
    const { bundle, agent, instanceKey, process, env } = options;
    const { stateRoot } = this.options;
    let swarmKey = options.swarm;
    try {
      swarmKey = selectSwarm(bundle, options.swarm).spec.instanceKey;
    } catch {
      // A bundle that skipped validation: the child reports it.
    }
    const instances = join(stateRoot, "workspaces", safeName(swarmKey), "instances", safeName(agent));
    const cassette = env[RECORD_CASSETTE_ENV];
    return {
      setting: process.sandbox ?? "auto",
      keep: [
        // Its own directory, not just the workdir: the process makes the workdir when a tool first reads it.
        instanceKey === undefined
          ? instances
          : instancePaths({ stateRoot, swarmInstanceKey: swarmKey, agent, instanceKey }).root,
        ...(cassette === undefined || cassette === "" ? [] : [dirname(cassette)]),
      ],
      readOnly: [env[BUNDLE_SNAPSHOT_ENV] ?? "", bundle.dir].filter((path) => path !== ""),
    };
  }

  /** Only what this agent's own resources need, plus the basics (see child-environment.ts). */
  private environment(bundle: Bundle, agent: string): Record<string, string> {
    const { env } = this.options;
    try {
      const resource = findResource(bundle, "Agent", agent);
      const names = resource
        ? [...agentRequiredEnvNames(bundle, resource), ...providerEnvNames(agentModel(bundle, resource).spec.provider)]
        : [];
      return childEnvironment({ env, names });
    } catch (error) {
      // Only a bundle that skipped validation gets here; the child then reports what it lacks itself.
      this.options.logger.warn(
        { agent, err: error },
        "could not work out the env vars this agent needs; passing the basics only",
      );
      return childEnvironment({ env });
    }
  }

  private snapshotFile(bundle: Bundle): string {
    if (this.snapshot?.bundle !== bundle)
      this.snapshot = { bundle, file: writeBundleSnapshot({ stateRoot: this.options.stateRoot, bundle }) };
    return this.snapshot.file;
  }
}
