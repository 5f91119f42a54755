/**
 * Connection ingress routing (SPEC §1): the first rule whose `match` fits the event (by name and by
 * every listed property) decides the target agent (default: the Swarm's entry agent) and instanceKey
 * (fixed, or read from a property with an optional prefix; else the event's own key; else the
 * Swarm's). Pure: no I/O, no state.
 */
import type { IngressRule } from "../../config/types.ts";
import type { ConnectorEvent } from "../connector-event.ts";

export interface IngressRoute {
  agent: string;
  instanceKey: string;
  /** Index of the rule that matched, or -1 when the Connection has no rules (catch-all default). */
  ruleIndex: number;
  /** The rule delivers the event as this signal to the turns waiting for it, instead of to `agent`. */
  signal?: string;
}

export interface RouteEventOptions {
  event: ConnectorEvent;
  rules: readonly IngressRule[];
  entryAgent: string;
  /** The Swarm's instanceKey, used when neither the rule nor the event gives one. */
  swarmInstanceKey: string;
}

export function ruleMatches(rule: IngressRule, event: ConnectorEvent): boolean {
  const match = rule.match ?? {};
  if (match.event !== undefined && match.event !== event.name) return false;
  for (const [key, expected] of Object.entries(match.properties ?? {})) {
    const actual = event.properties[key];
    if (actual === undefined || String(actual) !== String(expected)) return false;
  }
  return true;
}

/** Routes an event, or returns undefined when rules exist and none matches (the event is dropped). */
export function routeEvent(options: RouteEventOptions): IngressRoute | undefined {
  const { event, rules, entryAgent, swarmInstanceKey } = options;
  if (rules.length === 0)
    return { agent: entryAgent, instanceKey: event.instanceKey ?? swarmInstanceKey, ruleIndex: -1 };
  const ruleIndex = rules.findIndex((rule) => ruleMatches(rule, event));
  const rule = rules[ruleIndex];
  if (rule === undefined) return undefined;
  const route = rule.route ?? {};
  return {
    agent: route.agentRef?.name ?? entryAgent,
    instanceKey: routeInstanceKey(route, event) ?? swarmInstanceKey,
    ruleIndex,
    ...(rule.signal === undefined ? {} : { signal: rule.signal }),
  };
}

function routeInstanceKey(route: IngressRule["route"], event: ConnectorEvent): string | undefined {
  if (route.instanceKey !== undefined) return route.instanceKey;
  if (route.instanceKeyProperty !== undefined) {
    const value = event.properties[route.instanceKeyProperty];
    if (value !== undefined && String(value) !== "") return `${route.instanceKeyPrefix ?? ""}${String(value)}`;
  }
  return event.instanceKey;
}
