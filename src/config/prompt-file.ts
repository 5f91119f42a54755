/**
 * The Agent prompt file (`prompt.systemRef`): a regular file of at most MAX_PROMPT_BYTES. Validation
 * (check-files) and the agent's read at start (readSystemPrompt) use the same check, so a file that grew
 * or turned into a FIFO after `goondan validate` is still refused before it is read (regular-file.ts).
 */
import type { IssueCode } from "./issue-codes.ts";
import { inspectRegularFile, readRegularFile, type RegularFileProblem } from "./regular-file.ts";

/** 1 MiB, like goondan.yaml: a system prompt is text an LLM reads on every step. */
export const MAX_PROMPT_BYTES = 1024 * 1024;

export type PromptFileProblem = {
  code: Extract<IssueCode, "E_CONFIG_PROMPT_NOT_FOUND" | "E_CONFIG_PROMPT_TOO_LARGE">;
  message: string;
};

function promptProblem(found: RegularFileProblem): PromptFileProblem {
  return {
    code: found.problem === "too-large" ? "E_CONFIG_PROMPT_TOO_LARGE" : "E_CONFIG_PROMPT_NOT_FOUND",
    message: found.message,
  };
}

/** `undefined` when `path` is a prompt file that may be read; else what is wrong with it. */
export function checkPromptFile(options: { path: string; written: string }): PromptFileProblem | undefined {
  const found = inspectRegularFile({ ...options, maxBytes: MAX_PROMPT_BYTES, what: "prompt" });
  return found === undefined ? undefined : promptProblem(found);
}

/** The prompt file's text, or what is wrong with it. */
export function readPromptFile(options: { path: string; written: string }): { text: string } | PromptFileProblem {
  const read = readRegularFile({ ...options, maxBytes: MAX_PROMPT_BYTES, what: "prompt" });
  return "text" in read ? read : promptProblem(read);
}
