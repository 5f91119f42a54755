/**
 * Files a bundle points at: Tool, Extension and Connector entries (E_CONFIG_ENTRY_NOT_FOUND), Agent
 * prompts (system xor systemRef, and the file exists) and replay cassettes. Every such path must stay
 * inside the bundle (E_CONFIG_ENTRY_OUTSIDE_BUNDLE).
 */
import type { IssueList, PathSegment } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { resolveBundlePath } from "./bundle-path.ts";
import type { IssueCode } from "./issue-codes.ts";

export function checkFiles(options: { resources: LoadedResource[]; issues: IssueList }): void {
  for (const loaded of options.resources) {
    const { resource } = loaded;
    switch (resource.kind) {
      case "Tool":
      case "Extension":
      case "Connector":
        checkPath({ loaded, issues: options.issues, segments: ["spec", "entry"], relativePath: resource.spec.entry, what: "entry", missingCode: "E_CONFIG_ENTRY_NOT_FOUND" });
        break;
      case "Agent":
        checkPrompt(loaded, options.issues);
        break;
      case "Model": {
        const cassette = resource.spec.provider === "replay" ? resource.spec.options?.cassette : undefined;
        if (typeof cassette === "string") {
          checkPath({ loaded, issues: options.issues, segments: ["spec", "options", "cassette"], relativePath: cassette, what: "cassette", missingCode: "W_CONFIG_CASSETTE_MISSING" });
        }
        break;
      }
      default:
        break;
    }
  }
}

function checkPrompt(loaded: LoadedResource, issues: IssueList): void {
  if (loaded.resource.kind !== "Agent") return;
  const { prompt } = loaded.resource.spec;
  const field = promptField(loaded);
  if (prompt.system !== undefined && prompt.systemRef !== undefined) {
    issues.at(loaded.site, ["spec", field], {
      code: "E_CONFIG_PROMPT_CONFLICT",
      message: `expected exactly one of ${field}.system or ${field}.systemRef, found both`,
      suggestion: "keep the inline system text or the file, not both",
    });
    return;
  }
  if (prompt.systemRef !== undefined) {
    checkPath({ loaded, issues, segments: ["spec", field, "systemRef"], relativePath: prompt.systemRef, what: "prompt file", missingCode: "E_CONFIG_PROMPT_NOT_FOUND" });
    return;
  }
  if (prompt.system === undefined) {
    issues.at(loaded.site, ["spec"], {
      code: "W_CONFIG_PROMPT_MISSING",
      message: "expected prompt.system or prompt.systemRef, found neither: the agent runs without a system prompt",
    });
  }
}

/** The field the Agent wrote its prompt under: `prompt`, or `prompts` in some public bundles. */
function promptField(loaded: LoadedResource): "prompt" | "prompts" {
  const spec = loaded.raw.spec as { prompt?: unknown; prompts?: unknown } | undefined;
  return spec?.prompt === undefined && spec?.prompts !== undefined ? "prompts" : "prompt";
}

function checkPath(options: { loaded: LoadedResource; issues: IssueList; segments: PathSegment[]; relativePath: string; what: string; missingCode: IssueCode }): void {
  const { loaded, issues, segments, relativePath, what } = options;
  const resolved = resolveBundlePath({ baseDir: loaded.resource.source.baseDir, relativePath });
  if (!resolved.ok) {
    issues.at(loaded.site, segments, {
      code: "E_CONFIG_ENTRY_OUTSIDE_BUNDLE",
      message: `expected the ${what} path to be relative and inside the bundle, found ${resolved.reason === "absolute" ? "an absolute path" : "a path that leaves the bundle"}: ${relativePath}`,
      suggestion: "copy the file into the bundle directory and refer to it as ./<path>",
    });
    return;
  }
  if (!resolved.exists) {
    issues.at(loaded.site, segments, {
      code: options.missingCode,
      message: `expected the ${what} file ${relativePath} to exist, found no file at ${resolved.path}`,
    });
  }
}
