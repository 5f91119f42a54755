/** The schema of every kind, by kind name. */
import type { Kind } from "../types.ts";
import type { JsonSchema } from "./common.ts";
import { agentSchema } from "./agent.ts";
import { connectionSchema } from "./connection.ts";
import { connectorSchema } from "./connector.ts";
import { evalSchema } from "./eval.ts";
import { extensionSchema } from "./extension.ts";
import { modelSchema } from "./model.ts";
import { packageSchema } from "./package.ts";
import { swarmSchema } from "./swarm.ts";
import { toolSchema } from "./tool.ts";

export const KIND_SCHEMAS: Record<Kind, JsonSchema> = {
  Package: packageSchema,
  Model: modelSchema,
  Agent: agentSchema,
  Swarm: swarmSchema,
  Tool: toolSchema,
  Extension: extensionSchema,
  Connector: connectorSchema,
  Connection: connectionSchema,
  Eval: evalSchema,
};
