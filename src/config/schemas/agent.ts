/** The JSON Schema of an Agent document: modelConfig, prompt (or the public `prompts`), tools, extensions. */
import { envelope, nonEmptyString, ref } from "./common.ts";
import { agentLimitsSchema, budgetSchema } from "./limits.ts";

const prompt = {
  type: "object",
  additionalProperties: false,
  description: "The system prompt: inline `system` or a bundle-relative file `systemRef` (not both).",
  properties: { system: { type: "string" }, systemRef: nonEmptyString },
};

export const agentSchema = envelope({
  kind: "Agent",
  description: "An agent: model, system prompt, tools and extensions.",
  spec: {
    type: "object",
    required: ["modelConfig"],
    additionalProperties: false,
    properties: {
      modelConfig: {
        type: "object",
        required: ["modelRef"],
        additionalProperties: false,
        properties: {
          modelRef: ref("refItem"),
          params: {
            type: "object",
            properties: {
              temperature: { type: "number", minimum: 0, maximum: 2 },
              maxTokens: { type: "integer", minimum: 1 },
              topP: { type: "number", minimum: 0, maximum: 1 },
            },
          },
        },
      },
      prompt,
      prompts: { ...prompt, description: "Spelling of `prompt` used by some public bundles." },
      system: {
        type: "string",
        description: "Deprecated: the public tutorials' spelling of `prompt.system` (a warning says so).",
      },
      tools: { type: "array", items: ref("refItem") },
      extensions: { type: "array", items: ref("extensionItem") },
      requiredTools: { type: "array", items: nonEmptyString },
      process: {
        type: "object",
        additionalProperties: false,
        description:
          "How the agent's instances are spread over processes: shared (isolation: agent) or one each (isolation: instance); sandbox: whether those processes run in their sandbox (auto, required, none).",
        properties: {
          isolation: { enum: ["agent", "instance"] },
          sandbox: { enum: ["auto", "required", "none"] },
          maxProcesses: { type: "integer", minimum: 1, maximum: 256 },
          maxInstancesPerProcess: { type: "integer", minimum: 1, maximum: 100_000 },
        },
      },
      description: { type: "string" },
      budget: budgetSchema(["instance", "agent"]),
      limits: agentLimitsSchema,
    },
  },
});
