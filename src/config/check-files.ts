/**
 * Files a bundle points at: Tool, Extension and Connector entries (E_CONFIG_ENTRY_NOT_FOUND), Agent
 * prompts (system xor systemRef; the file exists, is a regular file and at most 1 MiB) and replay cassettes
 * (cassette-file.ts: a regular file of at most 16 MiB; a missing one is a warning). Every one of them must be
 * relative and stay inside the bundle, symlinks followed (E_CONFIG_ENTRY_OUTSIDE_BUNDLE).
 */
import type { IssueList, PathSegment } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import { resolveBundlePath } from "./bundle-path.ts";
import { statSync } from "node:fs";
import { cassetteIssue } from "./cassette-file.ts";
import type { IssueCode } from "./issue-codes.ts";
import { checkPromptFile } from "./prompt-file.ts";
import { describeNonRegularFile } from "./file-kind.ts";

export function checkFiles(options: { resources: LoadedResource[]; issues: IssueList }): void {
  for (const loaded of options.resources) {
    const { resource } = loaded;
    switch (resource.kind) {
      case "Tool":
      case "Extension":
      case "Connector":
        checkPath({
          loaded,
          issues: options.issues,
          segments: ["spec", "entry"],
          relativePath: resource.spec.entry,
          what: "entry",
          missingCode: "E_CONFIG_ENTRY_NOT_FOUND",
        });
        break;
      case "Agent":
        checkPrompt(loaded, options.issues);
        break;
      case "Model": {
        const cassette = resource.spec.provider === "replay" ? resource.spec.options?.cassette : undefined;
        if (typeof cassette === "string") checkCassette({ loaded, issues: options.issues, cassette });
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
    const segments = ["spec", field, "systemRef"];
    const path = checkPath({
      loaded,
      issues,
      segments,
      relativePath: prompt.systemRef,
      what: "prompt",
      missingCode: "E_CONFIG_PROMPT_NOT_FOUND",
    });
    const problem = path === undefined ? undefined : checkPromptFile({ path, written: prompt.systemRef });
    if (problem)
      issues.at(loaded.site, segments, {
        ...problem,
        ...(problem.code === "E_CONFIG_PROMPT_TOO_LARGE"
          ? { suggestion: "keep the system prompt short; put reference material in a tool the agent can call" }
          : {}),
      });
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

function checkCassette(options: { loaded: LoadedResource; issues: IssueList; cassette: string }): void {
  const issue = cassetteIssue({ baseDir: options.loaded.resource.source.baseDir, cassette: options.cassette });
  if (issue !== undefined) options.issues.at(options.loaded.site, ["spec", "options", "cassette"], issue);
}

/** Reports a path that leaves the bundle or names no file; returns the absolute path of a file that exists. */
function checkPath(options: {
  loaded: LoadedResource;
  issues: IssueList;
  segments: PathSegment[];
  relativePath: string;
  what: string;
  missingCode: IssueCode;
}): string | undefined {
  const { loaded, issues, segments, relativePath, what } = options;
  const resolved = resolveBundlePath({ baseDir: loaded.resource.source.baseDir, relativePath });
  if (!resolved.ok) {
    issues.at(loaded.site, segments, {
      code: "E_CONFIG_ENTRY_OUTSIDE_BUNDLE",
      message: `expected the ${what} path to be relative and inside the bundle, found ${resolved.reason === "absolute" ? "an absolute path" : "a path that leaves the bundle"}: ${relativePath}`,
      suggestion: "copy the file into the bundle directory and refer to it as ./<path>",
    });
    return undefined;
  }
  if (!resolved.exists) {
    const found = describeNonRegularPath(resolved.path);
    issues.at(loaded.site, segments, {
      code: options.missingCode,
      message:
        found === undefined
          ? `expected the ${what} file ${relativePath} to exist, found no file at ${resolved.path}`
          : `expected the ${what} file ${relativePath} to be a regular file, found ${found} at ${resolved.path}`,
    });
    return undefined;
  }
  return resolved.path;
}

/** What sits at a path that is not a regular file (a directory, a FIFO, ...); undefined when nothing is there. */
function describeNonRegularPath(path: string): string | undefined {
  try {
    return describeNonRegularFile(statSync(path));
  } catch {
    return undefined;
  }
}
