/**
 * Validating documents against the schema of their kind with ajv. Each kind's schema is compiled once
 * per process. ajv errors become issues at the exact field (`spec.exports[0].name`); the branches of a
 * titled `anyOf` (ObjectRef, ValueSource) fold into one "expected <title>" issue.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import type { Kind } from "./types.ts";
import { KIND_SCHEMAS } from "./schemas/index.ts";
import { TITLES, withDefinitions, type JsonSchema } from "./schemas/common.ts";
import { describeFound, type DocumentSite, type IssueList, type PathSegment } from "./issues.ts";
import type { IssueCode } from "./issue-codes.ts";
import { didYouMean } from "./suggest.ts";

const compiled = new Map<Kind, ValidateFunction>();
let ajv: Ajv | undefined;

/**
 * The compiler of goondan's own schemas. They are not checked against JSON Schema's meta-schema when compiled:
 * compiling that meta-schema was a sixth of what `goondan validate` cost, and ours are fixed at build time, so
 * `test/config/own-schemas.test.ts` checks every one of them against it instead (strict mode still runs).
 */
function compiler(): Ajv {
  ajv ??= new Ajv({
    allErrors: true,
    verbose: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    validateSchema: false,
  });
  return ajv;
}

function validatorFor(kind: Kind): ValidateFunction {
  let validate = compiled.get(kind);
  if (!validate) {
    validate = compiler().compile(withDefinitions(KIND_SCHEMAS[kind]));
    compiled.set(kind, validate);
  }
  return validate;
}

const TITLE_CODES: Record<string, { code: IssueCode; expected: string }> = {
  [TITLES.objectRef]: {
    code: "E_CONFIG_INVALID_REF",
    expected: 'an ObjectRef ("Kind/name", {kind, name, package?} or {ref: …})',
  },
  [TITLES.valueSource]: {
    code: "E_CONFIG_VALUE_SOURCE_INVALID",
    expected: 'a ValueSource ({value}, {valueFrom: {env}} or {valueFrom: {secretRef: {ref: "Secret/x", key}}})',
  },
  [TITLES.dependency]: { code: "E_CONFIG_SCHEMA_INVALID", expected: 'a dependency ("name" or {name, version})' },
  [TITLES.argumentMatcher]: {
    code: "E_CONFIG_EVAL_MATCHER_INVALID",
    expected: "a tool argument matcher (a value, or one of {$contains}, {$regex, $flags?}, {$exists})",
  },
};

/** Validates one document of a known kind; returns true when it matches its schema. */
export function validateDocument(options: {
  kind: Kind;
  value: unknown;
  site: DocumentSite;
  issues: IssueList;
}): boolean {
  return report({
    validate: validatorFor(options.kind),
    value: options.value,
    site: options.site,
    at: [],
    issues: options.issues,
  });
}

const compiledParts = new Map<JsonSchema, ValidateFunction>();

/**
 * Validates a value inside a document (a built-in extension's config) against `schema`, compiled once per
 * schema object; issues point at `at` + the failing field. Returns true when it matches.
 */
export function validateValue(options: {
  schema: JsonSchema;
  value: unknown;
  site: DocumentSite;
  at: readonly PathSegment[];
  issues: IssueList;
}): boolean {
  let validate = compiledParts.get(options.schema);
  if (!validate) {
    validate = compiler().compile(withDefinitions(options.schema));
    compiledParts.set(options.schema, validate);
  }
  return report({ validate, value: options.value, site: options.site, at: options.at, issues: options.issues });
}

function report(options: {
  validate: ValidateFunction;
  value: unknown;
  site: DocumentSite;
  at: readonly PathSegment[];
  issues: IssueList;
}): boolean {
  if (options.validate(options.value)) return true;
  for (const error of foldErrors(options.validate.errors ?? [])) {
    const { segments, code, message, suggestion } = describeAjvError(error);
    options.issues.at(options.site, [...options.at, ...segments], {
      code,
      message,
      suggestion,
      atKey: error.keyword === "additionalProperties",
    });
  }
  return false;
}

/**
 * Keeps one error per titled anyOf (the outermost) and drops every error at or under its path: those
 * are the failures of its branches. `if` errors are dropped too: the `then` errors say what is wrong.
 */
function foldErrors(errors: ErrorObject[]): ErrorObject[] {
  const titled = errors
    .filter(
      (error) =>
        error.keyword === "anyOf" && typeof (error.parentSchema as { title?: unknown } | undefined)?.title === "string",
    )
    // Outermost first; at the same path, ajv reports an enclosing anyOf after the ones inside it.
    .sort(
      (left, right) =>
        left.instancePath.length - right.instancePath.length || errors.indexOf(right) - errors.indexOf(left),
    );
  const folds: ErrorObject[] = [];
  for (const error of titled) {
    if (!folds.some((fold) => isAtOrUnder(error.instancePath, fold.instancePath))) folds.push(error);
  }
  return errors.filter((error) => {
    if (folds.includes(error)) return true;
    if (error.keyword === "if") return false;
    return !folds.some((fold) => isAtOrUnder(error.instancePath, fold.instancePath));
  });
}

function isAtOrUnder(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

function describeAjvError(error: ErrorObject): {
  segments: PathSegment[];
  code: IssueCode;
  message: string;
  suggestion?: string | undefined;
} {
  const segments = pointerToSegments(error.instancePath);
  const found = describeFound(error.data);
  switch (error.keyword) {
    case "anyOf": {
      const title = (error.parentSchema as { title?: string }).title ?? "";
      const entry = TITLE_CODES[title] ?? { code: "E_CONFIG_SCHEMA_INVALID" as const, expected: title };
      return { segments, code: entry.code, message: `expected ${entry.expected}, found ${found}` };
    }
    case "required": {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      return {
        segments: [...segments, missing],
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected required field "${missing}", found none`,
      };
    }
    case "additionalProperties": {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      const allowed = Object.keys((error.parentSchema as { properties?: Record<string, unknown> }).properties ?? {});
      return {
        segments: [...segments, extra],
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected one of the fields ${allowed.join(", ") || "(none)"}, found unknown field "${extra}"`,
        suggestion: didYouMean(extra, allowed),
      };
    }
    case "const":
      return {
        segments,
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}, found ${found}`,
      };
    case "enum": {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      const suggestion =
        typeof error.data === "string"
          ? didYouMean(
              error.data,
              allowed.filter((value): value is string => typeof value === "string"),
            )
          : undefined;
      return {
        segments,
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected one of ${allowed.map((value) => JSON.stringify(value)).join(", ")}, found ${found}`,
        suggestion,
      };
    }
    case "type": {
      const types = [(error.params as { type: string | string[] }).type].flat();
      return {
        segments,
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected ${types.map((type) => (type === "object" ? "a mapping" : type === "array" ? "a list" : `a ${type}`)).join(" or ")}, found ${found}`,
      };
    }
    case "minItems":
      return {
        segments,
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected at least ${(error.params as { limit: number }).limit} item(s), found ${found}`,
      };
    case "minLength":
      // An empty metadata.name has its own code, as in the public Goondan loader.
      return {
        segments,
        code: isNameField(segments) ? "E_CONFIG_INVALID_NAME" : "E_CONFIG_SCHEMA_INVALID",
        message: `expected a string of at least ${(error.params as { limit: number }).limit} character(s), found ${found}`,
      };
    case "maxLength":
      return {
        segments,
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected a string of at most ${(error.params as { limit: number }).limit} characters, found ${found}`,
      };
    case "minimum":
    case "maximum": {
      const { comparison, limit } = error.params as { comparison: string; limit: number };
      return {
        segments,
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected a number ${comparison} ${limit}, found ${found}`,
      };
    }
    case "pattern":
      return {
        segments,
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected a string matching ${(error.params as { pattern: string }).pattern}, found ${found}`,
      };
    default:
      return {
        segments,
        code: "E_CONFIG_SCHEMA_INVALID",
        message: `expected a value that ${error.message ?? "matches the schema"}, found ${found}`,
      };
  }
}

function isNameField(segments: readonly PathSegment[]): boolean {
  return segments.length === 2 && segments[0] === "metadata" && segments[1] === "name";
}

function pointerToSegments(pointer: string): PathSegment[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}
