/**
 * A Connection's ingress rules against its Swarm and its Connector: a route targets an agent of the Swarm
 * and sets instanceKey or instanceKeyProperty, not both; a rule's `match.event` names an event the
 * Connector can emit for this Connection, or an event would never reach an agent (E_CONFIG_UNKNOWN_EVENT).
 * An event is known by its declared name, its `aliases` (older names: the rule is rewritten to the
 * current name here, so the router only ever compares current names), or, when the Connector lets a
 * Connection rename it (`nameFromConfig`), by the name that Connection's config gives it.
 */
import type { IssueList, PathSegment } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import type { RefIndex } from "./check-refs.ts";
import { SCHEDULE_CONNECTOR_NAME } from "./schedule-settings.ts";
import type { ConnectionResource, ConnectorResource, IngressRule, SwarmResource } from "./types.ts";
import { isValueSource } from "./value-source.ts";
import { closestFirst, didYouMean, joinSuggestions } from "./suggest.ts";

/** The names a Connection's rules may match, each mapped to the name the connector emits. */
interface EmittedEvents {
  byName: Map<string, string>;
  /** How the events are listed in messages: `stdin_message (or user_input)`. */
  described: string[];
}

export function checkIngress(options: { resources: LoadedResource[]; index: RefIndex; issues: IssueList }): void {
  for (const loaded of options.resources) {
    if (loaded.resource.kind === "Connection")
      checkConnection({ loaded, connection: loaded.resource, index: options.index, issues: options.issues });
  }
}

function checkConnection(options: {
  loaded: LoadedResource;
  connection: ConnectionResource;
  index: RefIndex;
  issues: IssueList;
}): void {
  const { loaded, connection, index, issues } = options;
  const swarmName = connection.spec.swarmRef?.name;
  const swarm =
    swarmName === undefined
      ? undefined
      : (index.local.get(`Swarm/${swarmName}`)?.resource as SwarmResource | undefined);
  const connector = connectorOf(connection, index);
  const emitted = connector === undefined ? undefined : emittedEvents(connector, connection);
  connection.spec.ingress.rules.forEach((rule, ruleIndex) => {
    const at: PathSegment[] = ["spec", "ingress", "rules", ruleIndex];
    const { route, match } = rule;
    if (route.instanceKey !== undefined && route.instanceKeyProperty !== undefined) {
      issues.at(loaded.site, [...at, "route"], {
        code: "E_CONFIG_ROUTE_CONFLICT",
        message: "expected route.instanceKey or route.instanceKeyProperty, found both",
        suggestion: "keep instanceKey for a fixed conversation, or instanceKeyProperty to read it from the event",
      });
    }
    if (rule.signal !== undefined) checkSignalRule({ loaded, rule, at, connector, issues });
    if (
      route.agentRef &&
      swarm &&
      index.local.has(`Agent/${route.agentRef.name}`) &&
      !swarm.spec.agents.some((agent) => agent.name === route.agentRef?.name)
    ) {
      issues.at(loaded.site, [...at, "route", "agentRef"], {
        code: "E_CONFIG_ROUTE_AGENT_NOT_IN_SWARM",
        message: `expected an agent of Swarm/${swarm.metadata.name} (${swarm.spec.agents.map((agent) => agent.name).join(", ")}), found Agent/${route.agentRef.name}`,
        suggestion: `add "Agent/${route.agentRef.name}" to Swarm/${swarm.metadata.name} spec.agents`,
      });
    }
    if (match.event === undefined || emitted === undefined || connector === undefined) return;
    const current = emitted.byName.get(match.event);
    if (current !== undefined) {
      match.event = current;
      return;
    }
    const names = [...new Set(emitted.byName.values())];
    const meant = didYouMean(match.event, names);
    issues.at(loaded.site, [...at, "match", "event"], {
      code: "E_CONFIG_UNKNOWN_EVENT",
      message: `expected an event Connector/${connector.metadata.name} emits (${emitted.described.join(", ")}), found "${match.event}": this rule would never match`,
      // With one emitted event, "did you mean" already names it.
      suggestion: joinSuggestions(
        meant,
        meant !== undefined && names.length === 1
          ? undefined
          : `match one of: ${closestFirst(match.event, names).join(", ")}`,
      ),
    });
  });
}

/** A signal rule hands the event to the turns waiting for it: it routes nowhere, and a schedule's tick is no signal. */
function checkSignalRule(options: {
  loaded: LoadedResource;
  rule: IngressRule;
  at: PathSegment[];
  connector: ConnectorResource | undefined;
  issues: IssueList;
}): void {
  const { loaded, rule, at, connector, issues } = options;
  const routed = Object.keys(rule.route);
  if (routed.length > 0)
    issues.at(loaded.site, [...at, "signal"], {
      code: "E_CONFIG_SIGNAL_RULE_INVALID",
      message: `expected either signal or route in one rule, found signal "${rule.signal}" and route.${routed.join(", route.")}`,
      suggestion: "a signal reaches the turns waiting for it wherever they run: drop the route, or make two rules",
    });
  if (connector?.metadata.name === SCHEDULE_CONNECTOR_NAME)
    issues.at(loaded.site, [...at, "signal"], {
      code: "E_CONFIG_SIGNAL_RULE_INVALID",
      message: `expected no signal on a schedule's rule, found signal "${rule.signal}"`,
      suggestion: "route the tick to an agent; a turn waits for a time with timer__sleep",
    });
}

/** The Connector a Connection names: a built-in when it says `package`, else local first. */
function connectorOf(connection: ConnectionResource, index: RefIndex): ConnectorResource | undefined {
  const ref = connection.spec.connectorRef;
  const key = `Connector/${ref.name}`;
  const found =
    ref.package === undefined
      ? (index.local.get(key) ?? index.builtin.get(key))
      : (index.builtin.get(key) ?? index.local.get(key));
  return found?.resource as ConnectorResource | undefined;
}

/** Undefined when a name comes from an env var (known only at run time): then no rule can be judged. */
function emittedEvents(connector: ConnectorResource, connection: ConnectionResource): EmittedEvents | undefined {
  const byName = new Map<string, string>();
  const described: string[] = [];
  for (const event of connector.spec.events) {
    const written = event.nameFromConfig === undefined ? undefined : connection.spec.config?.[event.nameFromConfig];
    const renamed = isValueSource(written) ? ("value" in written ? written.value : undefined) : written;
    if (isValueSource(written) && renamed === undefined) return undefined;
    if (renamed !== undefined && renamed !== null && renamed !== "") {
      const name = String(renamed);
      byName.set(name, name);
      described.push(`${name} (set by config.${event.nameFromConfig})`);
      continue;
    }
    byName.set(event.name, event.name);
    for (const alias of event.aliases ?? []) if (!byName.has(alias)) byName.set(alias, event.name);
    described.push(event.aliases?.length ? `${event.name} (or ${event.aliases.join(", ")})` : event.name);
  }
  return { byName, described };
}
