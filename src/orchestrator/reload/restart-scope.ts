/**
 * Which instances a batch of restart requests names: everything, whole agents, or single instances of an
 * agent (`goondan restart --agent A --instance K`). A batch keeps two scopes, one for what restarts and one
 * for what is cleared (`--fresh`), so a name only ever widens the scope it was given to: a plain request
 * never makes an instance fresh, and one fresh instance never makes its whole agent fresh. An instance
 * covered by its whole agent (or by everything) is not listed again.
 */

export interface InstanceTarget {
  agent: string;
  instanceKey: string;
}

export interface ScopeLists {
  /** Whole agents, sorted; undefined when everything is in scope. */
  agents: string[] | undefined;
  /** Single instances not covered by `agents`, sorted by agent then instanceKey. */
  instances: InstanceTarget[];
}

export class RestartScope {
  private everything = false;
  private readonly agents = new Set<string>();
  private readonly instances = new Map<string, Set<string>>();

  /** Adds what one request names: nothing named is everything; an instanceKey needs its agent. */
  add(target: { agent?: string; instanceKey?: string }): void {
    if (target.agent === undefined) {
      if (target.instanceKey !== undefined)
        throw new TypeError(`expected an agent with instanceKey ${JSON.stringify(target.instanceKey)}, got none`);
      this.everything = true;
    } else if (target.instanceKey === undefined) this.agents.add(target.agent);
    else {
      const keys = this.instances.get(target.agent) ?? new Set<string>();
      keys.add(target.instanceKey);
      this.instances.set(target.agent, keys);
    }
  }

  get all(): boolean {
    return this.everything;
  }

  lists(): ScopeLists {
    if (this.everything) return { agents: undefined, instances: [] };
    const instances = [...this.instances]
      .filter(([agent]) => !this.agents.has(agent))
      .sort(([a], [b]) => a.localeCompare(b))
      .flatMap(([agent, keys]) => [...keys].sort().map((instanceKey) => ({ agent, instanceKey })));
    return { agents: [...this.agents].sort(), instances };
  }
}

/** Whether `targets` names this instance. */
export const namesInstance = (targets: readonly InstanceTarget[] | undefined, instance: InstanceTarget): boolean =>
  (targets ?? []).some((target) => target.agent === instance.agent && target.instanceKey === instance.instanceKey);
