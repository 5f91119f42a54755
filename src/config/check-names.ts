/**
 * Name rules: resource names unique per kind, metadata.name characters, and the Tool naming rules of
 * SPEC §2 (lowercase letters, digits, '-' and '_', upper case too in export names; no '__';
 * `{tool}__{export}` at most 64 characters; export names unique within a Tool). Connector event names
 * are unique within a Connector.
 */
import type { IssueList } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { formatPath } from "./issues.ts";

/** Names of Agents, Models, Swarms…: they become file names and ids. */
const RESOURCE_NAME = /^[a-z0-9][a-z0-9._-]*$/;
/** Tool and export names: they form the LLM tool name (exports may be camelCase, as upstream's `setChatAction`). */
const TOOL_NAME = /^[a-z0-9][a-z0-9_-]*$/;
const EXPORT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const MAX_LLM_TOOL_NAME = 64;
const MAX_RESOURCE_NAME = 63;

export function checkNames(options: { resources: LoadedResource[]; issues: IssueList }): void {
  const { resources, issues } = options;
  const firstSeen = new Map<string, LoadedResource>();
  for (const loaded of resources) {
    const { resource, site } = loaded;
    const key = `${resource.kind}/${resource.metadata.name}`;
    const first = firstSeen.get(key);
    if (first) {
      issues.at(site, ["metadata", "name"], {
        code: "E_CONFIG_DUPLICATE_NAME",
        message: `expected a unique ${resource.kind} name, found "${resource.metadata.name}" again (first at ${formatPath(first.site)})`,
        suggestion: `rename one of the two ${resource.kind} resources`,
      });
    } else {
      firstSeen.set(key, loaded);
    }
    if (resource.kind === "Tool") checkToolNames(loaded, issues);
    else if (resource.kind !== "Package") checkResourceName(loaded, issues);
    if (resource.kind === "Connector")
      checkUnique({
        loaded,
        issues,
        names: resource.spec.events.map((event) => event.name),
        field: "events",
        what: "event",
      });
  }
}

function checkResourceName(loaded: LoadedResource, issues: IssueList): void {
  const name = loaded.resource.metadata.name;
  if (RESOURCE_NAME.test(name) && name.length <= MAX_RESOURCE_NAME) return;
  issues.at(loaded.site, ["metadata", "name"], {
    code: "E_CONFIG_INVALID_NAME",
    message: `expected a name of lowercase letters, digits, '-', '_' and '.' (at most ${MAX_RESOURCE_NAME} characters, starting with a letter or digit), found "${name}"`,
    suggestion: `try "${suggestName(name)}"`,
  });
}

function checkToolNames(loaded: LoadedResource, issues: IssueList): void {
  const { resource, site } = loaded;
  if (resource.kind !== "Tool") return;
  const toolName = resource.metadata.name;
  const toolProblem = toolNameProblem(toolName);
  if (toolProblem) {
    issues.at(site, ["metadata", "name"], {
      code: "E_CONFIG_TOOL_NAME",
      message: `expected a Tool name ${toolProblem.expected}, found "${toolName}"`,
      suggestion: `try "${suggestName(toolName)}"`,
    });
  }
  resource.spec.exports.forEach((item, index) => {
    const problem = toolNameProblem(item.name, EXPORT_NAME);
    if (problem) {
      issues.at(site, ["spec", "exports", index, "name"], {
        code: "E_CONFIG_TOOL_NAME",
        message: `expected an export name ${problem.expected}, found "${item.name}"`,
        suggestion: `try "${suggestName(item.name)}"`,
      });
      return;
    }
    const llmName = `${toolName}__${item.name}`;
    if (!toolProblem && llmName.length > MAX_LLM_TOOL_NAME) {
      issues.at(site, ["spec", "exports", index, "name"], {
        code: "E_CONFIG_TOOL_NAME",
        message: `expected the LLM tool name to be at most ${MAX_LLM_TOOL_NAME} characters, found "${llmName}" (${llmName.length})`,
        suggestion: "shorten the Tool or export name",
      });
    }
  });
  checkUnique({
    loaded,
    issues,
    names: resource.spec.exports.map((item) => item.name),
    field: "exports",
    what: "export",
  });
}

/** Why `name` cannot be the first half of an LLM tool name (`{name}__…`), or undefined when it can; `pattern` is EXPORT_NAME for the second half. */
export function toolNameProblem(name: string, pattern = TOOL_NAME): { expected: string } | undefined {
  if (name.includes("__")) return { expected: "without '__' (it separates tool and export in the LLM name)" };
  if (!pattern.test(name))
    return {
      expected: `of ${pattern === TOOL_NAME ? "lowercase " : ""}letters, digits, '-' and '_', starting with a letter or digit`,
    };
  return undefined;
}

function checkUnique(options: {
  loaded: LoadedResource;
  issues: IssueList;
  names: string[];
  field: string;
  what: string;
}): void {
  const seen = new Map<string, number>();
  options.names.forEach((name, index) => {
    const first = seen.get(name);
    if (first === undefined) {
      seen.set(name, index);
      return;
    }
    options.issues.at(options.loaded.site, ["spec", options.field, index, "name"], {
      code: "E_CONFIG_DUPLICATE_NAME",
      message: `expected a unique ${options.what} name, found "${name}" again (first at spec.${options.field}[${first}])`,
    });
  });
}

export function suggestName(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/__+/g, "_")
      .replace(/[^a-z0-9_.-]+/g, "-")
      .replace(/^[^a-z0-9]+/, "")
      .slice(0, MAX_RESOURCE_NAME) || "name"
  );
}
