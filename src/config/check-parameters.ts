/**
 * Every Tool export's `parameters` must be a JSON Schema ajv can compile, of `type: object` (the shape
 * tool calls take). Compiled schemas are cached by their text.
 */
import Ajv from "ajv";
import addFormats from "ajv-formats";
import type { IssueList } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { describeFound } from "./issues.ts";

let ajv: Ajv | undefined;
const checked = new Map<string, string | undefined>();

/** The reason a parameters schema is not usable, or undefined when it is. */
export function parametersProblem(parameters: unknown): string | undefined {
  const text = JSON.stringify(parameters);
  if (checked.has(text)) return checked.get(text);
  let problem: string | undefined;
  if (typeof parameters !== "object" || parameters === null || (parameters as { type?: unknown }).type !== "object") {
    problem = `expected a JSON Schema with type: object, found type ${describeFound((parameters as { type?: unknown } | null)?.type)}`;
  } else {
    try {
      ajv ??= addFormats(new Ajv({ strict: false, allErrors: true, validateSchema: true }));
      ajv.compile(parameters);
    } catch (error) {
      problem = `expected a valid JSON Schema, found: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  checked.set(text, problem);
  return problem;
}

export function checkParameters(options: { resources: LoadedResource[]; issues: IssueList }): void {
  for (const loaded of options.resources) {
    if (loaded.resource.kind !== "Tool") continue;
    loaded.resource.spec.exports.forEach((item, index) => {
      const problem = parametersProblem(item.parameters);
      if (problem)
        options.issues.at(loaded.site, ["spec", "exports", index, "parameters"], {
          code: "E_CONFIG_PARAMETERS_INVALID",
          message: problem,
        });
    });
  }
}
