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

export class AgentSpawnRequests {
  private snapshot: { bundle: Bundle; file: string } | undefined;
  /** Bumped for an agent by a reload that restarts it: its instances then start in new processes. */
  private readonly generations = new Map<string, number>();
  private specs: { bundle: Bundle; byAgent: Map<string, AgentProcessSpec> } | undefined;

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
    const env = {
      ...this.environment(bundle, agent),
      ...this.options.childEnv,
      [BUNDLE_SNAPSHOT_ENV]: this.snapshotFile(bundle),
    };
    const process = this.processSpec(bundle, agent);
    const sandbox = this.sandbox({ bundle, swarm, agent, instanceKey, process, env });
    return {
      address: instanceAddress(agent, instanceKey),
      argv: agentChildArgv({ bundle: bundle.dir, swarm, agent, instanceKey, stateRoot: this.options.stateRoot }),
      env,
      sandbox,
      ...(process.isolation === "agent"
        ? {
            share: {
              // Instances share a process only when they would have been started alike: same bundle, same env.
              group: createHash("sha256")
                .update(JSON.stringify([agent, this.generations.get(agent) ?? 0, bundle.dir, swarm, env, sandbox]))
                .digest("hex"),
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
    instanceKey: string;
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
    const paths = instancePaths({ stateRoot, swarmInstanceKey: swarmKey, agent, instanceKey });
    const instances = join(stateRoot, "workspaces", safeName(swarmKey), "instances", safeName(agent));
    const cassette = env[RECORD_CASSETTE_ENV];
    return {
      setting: process.sandbox ?? "auto",
      keep: [
        // Its own directory, not just the workdir: the process makes the workdir when a tool first reads it.
        process.isolation === "agent" ? instances : paths.root,
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
