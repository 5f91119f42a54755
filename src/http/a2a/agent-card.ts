/**
 * The swarm's A2A agent card: its name and the entry agent's description, one skill per entry agent (the Swarm's
 * entry agent), streaming on, push notifications off, the bearer token as its security scheme when the API has
 * one, and the interface URLs a client follows (JSON-RPC first, then HTTP+JSON), on the address the card was asked for.
 */
import { A2A_PROTOCOL_VERSION, type AgentCard } from "@a2a-js/sdk";
import packageJson from "../../../package.json" with { type: "json" };
import type { SwarmView } from "../../orchestrator/swarm-view.ts";

/** Where the JSON-RPC binding is served. */
export const A2A_PATH = "/v1/a2a";
/** Where the HTTP+JSON (REST) binding is served: `<this>/message:send`, `<this>/tasks/{id}`, … */
export const A2A_REST_PATH = "/v1/a2a/rest";

export function agentCard(options: { swarm: SwarmView; origin: string; token: boolean }): AgentCard {
  const { swarm } = options;
  const entry = swarm.agents.get(swarm.entryAgent);
  const description = entry?.description ?? `the goondan swarm ${swarm.name}`;
  return {
    name: swarm.name,
    description,
    supportedInterfaces: [
      {
        url: `${options.origin}${A2A_PATH}`,
        protocolBinding: "JSONRPC",
        tenant: "",
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
      {
        url: `${options.origin}${A2A_REST_PATH}`,
        protocolBinding: "HTTP+JSON",
        tenant: "",
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ],
    provider: undefined,
    version: packageJson.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: options.token
      ? {
          bearer: {
            scheme: {
              $case: "httpAuthSecurityScheme",
              value: {
                scheme: "Bearer",
                bearerFormat: "",
                description: "the API token (GOONDAN_API_TOKEN of goondan run)",
              },
            },
          },
        }
      : {},
    securityRequirements: options.token ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: swarm.entryAgent,
        name: swarm.entryAgent,
        description,
        tags: ["goondan", swarm.name],
        examples: [],
        inputModes: ["text/plain", "application/json"],
        outputModes: ["text/plain"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
