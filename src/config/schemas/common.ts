/**
 * JSON Schema pieces shared by every kind: the envelope (apiVersion, kind, metadata, spec), ObjectRef in
 * its forms, list items that wrap a ref, ValueSource, and free-form config objects. Each kind schema
 * embeds these `definitions`, so that one schema file is complete for ajv and for editors.
 */
import { API_VERSION, type Kind } from "../types.ts";

export type JsonSchema = Record<string, unknown>;

/** A titled `anyOf` is reported as one issue ("expected <title>") instead of one per branch. */
export const TITLES = {
  objectRef: "ObjectRef",
  valueSource: "ValueSource",
  dependency: "PackageDependency",
  argumentMatcher: "ArgumentMatcher",
} as const;

const objectRef: JsonSchema = {
  title: TITLES.objectRef,
  description: 'A reference to a resource: "Kind/name" or {kind, name, package?}.',
  anyOf: [
    { type: "string", pattern: "^[A-Za-z]+/[^/]+$" },
    {
      type: "object",
      required: ["kind", "name"],
      additionalProperties: false,
      properties: {
        kind: { type: "string", minLength: 1 },
        name: { type: "string", minLength: 1 },
        package: { type: "string", minLength: 1 },
        apiVersion: { type: "string" },
      },
    },
  ],
};

const refItem: JsonSchema = {
  title: TITLES.objectRef,
  description: "A list item referring to a resource: an ObjectRef, or {ref: ObjectRef}.",
  anyOf: [
    { $ref: "#/definitions/objectRef" },
    {
      type: "object",
      required: ["ref"],
      additionalProperties: false,
      properties: { ref: { $ref: "#/definitions/objectRef" } },
    },
  ],
};

const extensionItem: JsonSchema = {
  title: TITLES.objectRef,
  description:
    "An Extension used by an Agent: an ObjectRef, or {ref, config?} where config is merged over Extension.spec.config.",
  anyOf: [
    { $ref: "#/definitions/objectRef" },
    {
      type: "object",
      required: ["ref"],
      additionalProperties: false,
      properties: { ref: { $ref: "#/definitions/objectRef" }, config: { type: "object" } },
    },
  ],
};

const valueSource: JsonSchema = {
  title: TITLES.valueSource,
  description: 'A value: {value}, {valueFrom: {env: NAME}} or {valueFrom: {secretRef: {ref: "Secret/x", key}}}.',
  anyOf: [
    {
      type: "object",
      required: ["value"],
      additionalProperties: false,
      properties: { value: { type: ["string", "number", "boolean"] } },
    },
    {
      type: "object",
      required: ["valueFrom"],
      additionalProperties: false,
      properties: {
        valueFrom: {
          anyOf: [
            {
              type: "object",
              required: ["env"],
              additionalProperties: false,
              properties: { env: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" } },
            },
            {
              type: "object",
              required: ["secretRef"],
              additionalProperties: false,
              properties: {
                secretRef: {
                  type: "object",
                  required: ["ref", "key"],
                  additionalProperties: false,
                  properties: {
                    ref: { type: "string", pattern: "^Secret/[^/]+$" },
                    key: { type: "string", minLength: 1 },
                  },
                },
              },
            },
          ],
        },
      },
    },
  ],
};

const metadata: JsonSchema = {
  type: "object",
  required: ["name"],
  additionalProperties: false,
  properties: {
    name: { type: "string", minLength: 1, maxLength: 253 },
    labels: { type: "object", additionalProperties: { type: "string" } },
    annotations: { type: "object", additionalProperties: { type: "string" } },
  },
};

export const DEFINITIONS: Record<string, JsonSchema> = { objectRef, refItem, extensionItem, valueSource, metadata };

export const ref = (name: keyof typeof DEFINITIONS & string): JsonSchema => ({ $ref: `#/definitions/${name}` });

export const positiveInteger: JsonSchema = { type: "integer", minimum: 1 };
export const nonNegativeNumber: JsonSchema = { type: "number", minimum: 0 };
export const nonEmptyString: JsonSchema = { type: "string", minLength: 1 };
export const freeObject: JsonSchema = { type: "object" };

/** The schema of one document of `kind` (without `definitions`; see withDefinitions). */
export function envelope(options: {
  kind: Kind;
  spec: JsonSchema;
  specRequired?: boolean;
  description: string;
}): JsonSchema {
  return {
    type: "object",
    description: options.description,
    required: ["apiVersion", "kind", "metadata", ...(options.specRequired === false ? [] : ["spec"])],
    additionalProperties: false,
    properties: {
      apiVersion: { const: API_VERSION },
      kind: { const: options.kind },
      metadata: ref("metadata"),
      spec: options.spec,
    },
  };
}

export function withDefinitions(schema: JsonSchema): JsonSchema {
  return { ...schema, definitions: DEFINITIONS };
}
