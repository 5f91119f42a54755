/**
 * Argument validation for one tool export: its JSON Schema compiled ONCE with ajv (all errors, defaults
 * applied, formats), and failures described for the model: each failing path with what was expected and
 * what was found, plus the required and allowed keys as the suggestion. The HTTP API describes its request
 * schemas' failures with the same describeSchemaErrors and keysSuggestion.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { JsonObject } from "../shared/json.ts";

/** null when the arguments are valid, else what to tell the model. */
export type ArgsValidator = (args: JsonObject) => ArgsProblem | null;
export interface ArgsProblem {
  message: string;
  suggestion?: string;
}

const MAX_LISTED_ERRORS = 20;

/**
 * `validateSchema` (default true) checks each schema against the JSON Schema meta-schema before compiling it; the
 * first such check compiles the meta-schema itself, about 0.1 s of CPU. Schemas the config plane already checked
 * (config/check-parameters.ts) skip it, so an agent's first tool call does not pay for it.
 */
export function createSchemaCompiler(options: { validateSchema?: boolean } = {}): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    useDefaults: true,
    verbose: true,
    validateSchema: options.validateSchema ?? true,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * One process-wide compiler and cache: a schema is compiled once per process (keyed by its JSON text),
 * however many registries use it, and never per call. Schemas with their own `$id` get a private compiler
 * so two different schemas sharing an `$id` cannot collide.
 */
const sharedCompilers: { checking?: Ajv; trusting?: Ajv } = {};
const compiled = new Map<string, ValidateFunction>();

function compileSchema(schema: JsonObject, checked: boolean): ValidateFunction {
  if (typeof schema.$id === "string") return createSchemaCompiler({ validateSchema: !checked }).compile(schema);
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    const compiler = checked
      ? (sharedCompilers.trusting ??= createSchemaCompiler({ validateSchema: false }))
      : (sharedCompilers.checking ??= createSchemaCompiler());
    validate = compiler.compile(structuredClone(schema));
    compiled.set(key, validate);
  }
  return validate;
}

/** How many distinct schemas this process has compiled (for tests and diagnostics). */
export function compiledSchemaCount(): number {
  return compiled.size;
}

/**
 * Compiles `schema` (throws ajv's error when the schema itself is invalid). `checked`: the config plane has already
 * checked it against the meta-schema (a Tool resource's parameters), so that check is not repeated.
 */
export function compileArgsValidator(options: {
  schema: JsonObject;
  toolName: string;
  checked?: boolean;
}): ArgsValidator {
  const { schema, toolName } = options;
  const validate = compileSchema(schema, options.checked === true);
  const suggestion = keysSuggestion(schema);
  return (args) => {
    if (validate(args)) return null;
    const problems = describeSchemaErrors(validate.errors ?? []);
    const listed = problems.slice(0, MAX_LISTED_ERRORS);
    const more = problems.length > listed.length ? `; and ${problems.length - listed.length} more` : "";
    return {
      message: `Invalid arguments for ${toolName}: ${listed.join("; ")}${more}`,
      ...(suggestion === undefined ? {} : { suggestion }),
    };
  };
}

/** A short "Required keys: …. Allowed keys: …." line from the schema's top level. */
export function keysSuggestion(schema: JsonObject): string | undefined {
  const properties = schema.properties;
  const required = Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === "string") : [];
  const allowed =
    properties !== null && typeof properties === "object" && !Array.isArray(properties) ? Object.keys(properties) : [];
  const parts: string[] = [];
  if (required.length > 0) parts.push(`Required keys: ${required.join(", ")}.`);
  if (allowed.length > 0) {
    const closed = schema.additionalProperties === false ? " (no others)" : "";
    parts.push(
      `Allowed keys${closed}: ${allowed.map((key) => `${key}${describeProperty(properties, key)}`).join(", ")}.`,
    );
  }
  if (parts.length === 0) return undefined;
  return `Send a JSON object. ${parts.join(" ")}`;
}

function describeProperty(properties: unknown, key: string): string {
  const property = (properties as Record<string, unknown>)[key];
  if (property === null || typeof property !== "object") return "";
  const type = (property as { type?: unknown }).type;
  if (typeof type === "string") return ` (${type})`;
  if (Array.isArray(type)) return ` (${type.join("|")})`;
  return "";
}

/** One line per distinct ajv error: the failing path, what was expected and what was found. */
export function describeSchemaErrors(errors: readonly ErrorObject[]): string[] {
  const lines = new Set<string>();
  for (const error of errors) lines.add(describeSchemaError(error));
  return [...lines];
}

export function describeSchemaError(error: ErrorObject): string {
  const at = error.instancePath === "" ? "(root)" : error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${joinPath(error.instancePath, String(params.missingProperty))}: required property is missing`;
    case "additionalProperties":
      return `${joinPath(error.instancePath, String(params.additionalProperty))}: unknown property (not allowed)`;
    case "type":
      return `${at}: expected ${String(params.type)}, got ${typeOfJson(error.data)}`;
    case "enum":
      return `${at}: expected one of ${JSON.stringify(params.allowedValues)}, got ${preview(error.data)}`;
    case "const":
      return `${at}: expected ${JSON.stringify(params.allowedValue)}, got ${preview(error.data)}`;
    case "maxLength":
    case "minLength":
      return `${at}: ${error.message ?? error.keyword} (got ${typeof error.data === "string" ? error.data.length : "?"} characters)`;
    case "maxItems":
    case "minItems":
      return `${at}: ${error.message ?? error.keyword} (got ${Array.isArray(error.data) ? error.data.length : "?"} items)`;
    default:
      return `${at}: ${error.message ?? error.keyword}${isScalar(error.data) ? `, got ${preview(error.data)}` : ""}`;
  }
}

function joinPath(base: string, key: string): string {
  return `${base}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

function typeOfJson(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function isScalar(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
