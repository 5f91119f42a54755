/**
 * The JSON Schema of an Eval document: the cases `goondan eval` runs, each with an input or turns, fixtures and
 * expectations (docs/evals.md). Tool argument matchers are a plain value or one `$`-operator; a mapping whose keys
 * start with `$` must be exactly one operator, so a misspelled `$regx` is an error instead of a literal value. Whether
 * a case has `input` or `turns` (one, not both) is checked by src/config/check-evals.ts, with a message of its own.
 */
import {
  envelope,
  nonEmptyString,
  nonNegativeNumber,
  positiveInteger,
  ref,
  TITLES,
  type JsonSchema,
} from "./common.ts";

const strings = (item: JsonSchema = nonEmptyString): JsonSchema => ({
  anyOf: [item, { type: "array", minItems: 1, items: item }],
});

const operator = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({
  type: "object",
  required,
  additionalProperties: false,
  properties,
});

const argumentMatcher: JsonSchema = {
  title: TITLES.argumentMatcher,
  description: "A value the argument must equal, or {$contains}, {$regex, $flags?} or {$exists}.",
  anyOf: [
    { type: ["string", "number", "boolean", "null", "array"] },
    { type: "object", propertyNames: { not: { pattern: "^\\$" } } },
    operator({ $contains: { type: "string" } }, ["$contains"]),
    operator({ $regex: nonEmptyString, $flags: { type: "string", pattern: "^[gimsuy]*$" } }, ["$regex"]),
    operator({ $exists: { type: "boolean" } }, ["$exists"]),
  ],
};

const toolCalled: JsonSchema = {
  type: "object",
  required: ["tool"],
  additionalProperties: false,
  properties: {
    tool: nonEmptyString,
    args: { type: "object", additionalProperties: argumentMatcher },
    count: {
      anyOf: [
        { type: "integer", minimum: 0 },
        {
          type: "object",
          additionalProperties: false,
          minProperties: 1,
          properties: { min: { type: "integer", minimum: 0 }, max: { type: "integer", minimum: 0 } },
        },
      ],
    },
  },
};

const fileContains: JsonSchema = {
  type: "object",
  required: ["path"],
  additionalProperties: false,
  minProperties: 2,
  properties: { path: nonEmptyString, contains: { type: "string" }, regex: nonEmptyString },
};

const expectations: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    contains: strings({ type: "string" }),
    notContains: strings({ type: "string" }),
    regex: strings(),
    jsonSchema: { type: "object" },
    toolCalled: { type: "array", items: toolCalled },
    toolOrder: { type: "boolean" },
    notToolCalled: strings(),
    maxSteps: positiveInteger,
    maxTokens: positiveInteger,
    maxLatencyMs: positiveInteger,
    fileExists: strings(),
    fileContains: { type: "array", items: fileContains },
    judge: {
      type: "object",
      required: ["rubric", "model"],
      additionalProperties: false,
      properties: {
        rubric: nonEmptyString,
        model: ref("objectRef"),
        threshold: { ...nonNegativeNumber, maximum: 1 },
      },
    },
  },
};

const evalCase: JsonSchema = {
  type: "object",
  required: ["name", "expect"],
  additionalProperties: false,
  properties: {
    name: { type: "string", pattern: "^[a-z0-9][a-z0-9._-]*$", maxLength: 100 },
    description: { type: "string" },
    input: { type: "string" },
    turns: { type: "array", minItems: 1, maxItems: 20, items: { type: "string" } },
    agent: ref("objectRef"),
    fixtures: {
      type: "array",
      items: {
        type: "object",
        required: ["path", "content"],
        additionalProperties: false,
        properties: { path: nonEmptyString, content: { type: "string" } },
      },
    },
    expect: expectations,
  },
};

export const evalSchema = envelope({
  kind: "Eval",
  description: "Cases that `goondan eval` runs against a Swarm and scores (docs/evals.md).",
  spec: {
    type: "object",
    required: ["cases"],
    additionalProperties: false,
    properties: {
      swarm: nonEmptyString,
      agent: ref("objectRef"),
      cases: { type: "array", minItems: 1, items: evalCase },
    },
  },
});
