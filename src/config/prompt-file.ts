/**
 * The Agent prompt file (`prompt.systemRef`): a regular file of at most MAX_PROMPT_BYTES. Validation
 * (check-files) and the agent's read at start (readSystemPrompt) use the same check, so a file that grew
 * or turned into a FIFO after `goondan validate` is still refused, by a stat alone, before it is opened.
 */
import { statSync } from "node:fs";
import { describeNonRegularFile } from "./file-kind.ts";
import type { IssueCode } from "./issue-codes.ts";

/** 1 MiB, like goondan.yaml: a system prompt is text an LLM reads on every step. */
export const MAX_PROMPT_BYTES = 1024 * 1024;

export type PromptFileProblem = { code: Extract<IssueCode, "E_CONFIG_PROMPT_NOT_FOUND" | "E_CONFIG_PROMPT_TOO_LARGE">; message: string };

/** `undefined` when `path` is a prompt file that may be read; else what is wrong with it. */
export function checkPromptFile(options: { path: string; written: string }): PromptFileProblem | undefined {
  const { path, written } = options;
  let info;
  try {
    info = statSync(path);
  } catch {
    return { code: "E_CONFIG_PROMPT_NOT_FOUND", message: `expected the prompt file ${written} to exist, found no file at ${path}` };
  }
  const found = describeNonRegularFile(info);
  if (found !== undefined) return { code: "E_CONFIG_PROMPT_NOT_FOUND", message: `expected the prompt file ${written} to be a regular file, found ${found} at ${path}` };
  if (info.size > MAX_PROMPT_BYTES) return { code: "E_CONFIG_PROMPT_TOO_LARGE", message: `expected the prompt file ${written} to be at most ${MAX_PROMPT_BYTES} bytes, found ${info.size}` };
  return undefined;
}
