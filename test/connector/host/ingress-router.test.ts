import { describe, expect, it } from "bun:test";
import { routeEvent } from "../../../src/connector/host/ingress-router.ts";
import type { ConnectorEvent } from "../../../src/connector/connector-event.ts";
import type { IngressRule } from "../../../src/config/types.ts";

const event = (overrides: Partial<ConnectorEvent> = {}): ConnectorEvent => ({
  name: "message",
  message: { type: "text", text: "hi" },
  properties: { channel: "ops", chat_id: "42" },
  ...overrides,
});
const defaults = { entryAgent: "front", swarmInstanceKey: "team" };

describe("routeEvent", () => {
  it("sends every event to the entry agent and the event's own key when the Connection has no rules", () => {
    expect(routeEvent({ ...defaults, event: event({ instanceKey: "chat-1" }), rules: [] })).toEqual({
      agent: "front",
      instanceKey: "chat-1",
      ruleIndex: -1,
    });
    expect(routeEvent({ ...defaults, event: event(), rules: [] })).toEqual({
      agent: "front",
      instanceKey: "team",
      ruleIndex: -1,
    });
  });

  it("names the signal of a matching signal rule, and routes past it when it does not match", () => {
    const rules: IngressRule[] = [
      { match: { event: "message", properties: { channel: "deploys" } }, route: {}, signal: "deploy-finished" },
      { match: { event: "message" }, route: { instanceKey: "chat" } },
    ];
    const deploys = event({ properties: { channel: "deploys" } });
    expect(routeEvent({ ...defaults, event: deploys, rules })).toEqual({
      agent: "front",
      instanceKey: "team",
      ruleIndex: 0,
      signal: "deploy-finished",
    });
    expect(routeEvent({ ...defaults, event: event(), rules })).toEqual({
      agent: "front",
      instanceKey: "chat",
      ruleIndex: 1,
    });
  });

  it("applies the first matching rule, not the most specific one", () => {
    const rules: IngressRule[] = [
      { match: { event: "message" }, route: { agentRef: { kind: "Agent", name: "first" } } },
      {
        match: { event: "message", properties: { channel: "ops" } },
        route: { agentRef: { kind: "Agent", name: "second" } },
      },
    ];
    expect(routeEvent({ ...defaults, event: event(), rules })?.agent).toBe("first");
  });

  it("requires every listed property to match, comparing values as strings", () => {
    const rules: IngressRule[] = [
      { match: { properties: { channel: "ops", chat_id: 42 } }, route: { agentRef: { kind: "Agent", name: "ops" } } },
      { match: {}, route: {} },
    ];
    expect(routeEvent({ ...defaults, event: event(), rules })).toMatchObject({ agent: "ops", ruleIndex: 0 });
    expect(
      routeEvent({ ...defaults, event: event({ properties: { channel: "dev", chat_id: "42" } }), rules }),
    ).toMatchObject({ agent: "front", ruleIndex: 1 });
  });

  it("uses a fixed instanceKey from the rule over the event's own key", () => {
    const rules: IngressRule[] = [{ match: {}, route: { instanceKey: "shared" } }];
    expect(routeEvent({ ...defaults, event: event({ instanceKey: "mine" }), rules })?.instanceKey).toBe("shared");
  });

  it("reads the instanceKey from a property with the prefix in front", () => {
    const rules: IngressRule[] = [
      { match: { event: "message" }, route: { instanceKeyProperty: "chat_id", instanceKeyPrefix: "tg:" } },
    ];
    expect(routeEvent({ ...defaults, event: event(), rules })?.instanceKey).toBe("tg:42");
  });

  it("falls back to the Swarm's instanceKey when the keyed property is missing", () => {
    const rules: IngressRule[] = [{ match: {}, route: { instanceKeyProperty: "thread" } }];
    expect(routeEvent({ ...defaults, event: event(), rules })?.instanceKey).toBe("team");
  });

  it("drops an event no rule matches", () => {
    const rules: IngressRule[] = [{ match: { event: "command" }, route: {} }];
    expect(routeEvent({ ...defaults, event: event(), rules })).toBeUndefined();
  });
});
