/**
 * `approvers` in an agent's `tool-approval` config name credentials of the API (docs/http-api.md#credentials).
 * A name no credential has can never decide: `goondan run` warns at start, naming the agent and the names, so a
 * typo or a person's name left from before credentials were named shows before a call waits for nobody.
 */
import type { Bundle, SwarmResource } from "../../config/types.ts";
import { agentExtensions, swarmAgents } from "../../config/resolve.ts";
import { TOOL_APPROVAL_EXTENSION_NAME } from "../../config/schemas/tool-approval-config.ts";
import type { CredentialSet } from "./credential.ts";

export function unknownApprovers(options: {
  bundle: Bundle;
  swarm: SwarmResource;
  credentials: CredentialSet;
}): Array<{ agent: string; names: string[] }> {
  const known = new Set(options.credentials.credentials.map((credential) => credential.name));
  const found: Array<{ agent: string; names: string[] }> = [];
  for (const agent of swarmAgents(options.bundle, options.swarm)) {
    for (const use of agentExtensions(options.bundle, agent)) {
      if (use.resource.metadata.name !== TOOL_APPROVAL_EXTENSION_NAME) continue;
      const approvers = Array.isArray(use.config.approvers) ? use.config.approvers : [];
      const names = approvers.filter((name): name is string => typeof name === "string" && !known.has(name));
      if (names.length > 0) found.push({ agent: agent.metadata.name, names });
    }
  }
  return found;
}
