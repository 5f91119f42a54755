/**
 * The cassette format shared by the replay model and the recorder: a JSONL file, one recorded model call per
 * line:
 *
 *   {"v":1,
 *    "request":{"system":"<hash>","lastRole":"user"|"tool"|"assistant","last":"<hash>","preview":"…","tools":["…"]},
 *    "reply":{"content":[{"type":"text","text":"…"} | {"type":"tool-call","toolCallId":"…","toolName":"…","input":"<json>"}],
 *             "finishReason":"stop"|"tool-calls"|…,"usage":{"input":n,"output":n}}}
 *
 * `request` is a digest of the call, enough to pick the right line and to explain a mismatch: the hash of the
 * system prompt(s), the role of the last message and the hash of its key (a user/assistant message: its text; a
 * tool message: each result's tool name and status, not its output), a readable preview and the offered tool
 * names. Hashes are taken over NORMALISED text: ISO timestamps, UUIDs, prefixed ids (`evt_…`), long hex and
 * digit runs and absolute paths are replaced by placeholders, and whitespace collapses, so ids, clocks and the
 * workdir location never make a demo fail to replay. `tools` is informational (not matched).
 *
 * Hand-written cassettes may give readable text instead of hashes — `"systemText"` and `"lastText"` (for a tool
 * message: `"toolName:status,…"`) — and may leave out `system`, `lastRole` or `last`, which then match anything:
 *   {"v":1,"request":{"lastRole":"user","lastText":"hello"},"reply":{"content":[{"type":"text","text":"Hi!"}]}}
 */
import { createHash } from "node:crypto";
import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3Prompt } from "@ai-sdk/provider";

export interface CassetteRequest {
  system: string;
  lastRole: string;
  last: string;
  preview: string;
  tools: string[];
}

export type CassetteContent =
  | { type: "text"; text: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: string };

export interface CassetteReply {
  content: CassetteContent[];
  finishReason: string;
  usage: { input: number; output: number };
}

export interface CassetteLine {
  v: 1;
  request: CassetteRequestPattern;
  reply: CassetteReply;
}

/** A recorded request as found in a cassette: a missing field matches anything. */
export interface CassetteRequestPattern extends Partial<CassetteRequest> {
  systemText?: string;
  lastText?: string;
}

export function normalizeForMatch(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, "<time>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/\b[a-z]{2,12}_[a-z0-9]{8,}\b/gi, "<id>")
    .replace(/\b[0-9a-f]{16,}\b/gi, "<hex>")
    .replace(/\d{10,}/g, "<num>")
    .replace(/(?:\/[\w.@%+~-]+){2,}\/?/g, "<path>")
    .replace(/\s+/g, " ")
    .trim();
}

export const hash = (text: string): string =>
  createHash("sha256").update(normalizeForMatch(text)).digest("hex").slice(0, 16);

function partText(part: unknown): string {
  const record = part as { type?: string; text?: unknown };
  return record.type === "text" && typeof record.text === "string" ? record.text : "";
}

function toolResultStatus(output: unknown): string {
  const record = output as { type?: string; value?: unknown };
  if (record?.type === "json" && typeof record.value === "object" && record.value !== null) {
    const status = (record.value as { status?: unknown }).status;
    if (typeof status === "string") return status;
  }
  return record?.type ?? "unknown";
}

function lastMessageKey(prompt: LanguageModelV3Prompt): { role: string; key: string } {
  const last = prompt[prompt.length - 1];
  if (last === undefined) return { role: "none", key: "" };
  if (last.role === "system") return { role: "system", key: last.content };
  if (last.role === "tool") {
    const key = last.content
      .map((part) => (part.type === "tool-result" ? `${part.toolName}:${toolResultStatus(part.output)}` : part.type))
      .join(",");
    return { role: "tool", key };
  }
  return { role: last.role, key: last.content.map(partText).join("") };
}

export function describeRequest(options: Pick<LanguageModelV3CallOptions, "prompt" | "tools">): CassetteRequest {
  const system = options.prompt
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n\n");
  const last = lastMessageKey(options.prompt);
  return {
    system: hash(system),
    lastRole: last.role,
    last: hash(last.key),
    preview: normalizeForMatch(last.key).slice(0, 160),
    tools: (options.tools ?? []).map((tool) => tool.name).sort(),
  };
}

/** Turns readable `systemText` / `lastText` into the hashes they stand for. */
export function compilePattern(request: CassetteRequestPattern): CassetteRequestPattern {
  const compiled: CassetteRequestPattern = { ...request };
  if (compiled.system === undefined && request.systemText !== undefined) compiled.system = hash(request.systemText);
  if (compiled.last === undefined && request.lastText !== undefined) compiled.last = hash(request.lastText);
  if (compiled.preview === undefined && request.lastText !== undefined)
    compiled.preview = normalizeForMatch(request.lastText).slice(0, 160);
  return compiled;
}

/** Which digest fields differ (empty when the request matches the line); missing recorded fields match anything. */
export function requestDifferences(recorded: CassetteRequestPattern, actual: CassetteRequest): string[] {
  const differences: string[] = [];
  if (recorded.system !== undefined && recorded.system !== actual.system) differences.push("system prompt");
  if (recorded.lastRole !== undefined && recorded.lastRole !== actual.lastRole)
    differences.push(`last message role (recorded ${recorded.lastRole}, got ${actual.lastRole})`);
  else if (recorded.last !== undefined && recorded.last !== actual.last)
    differences.push(`last message (recorded "${recorded.preview ?? "?"}", got "${actual.preview}")`);
  return differences;
}

export function replyFromContent(
  content: readonly LanguageModelV3Content[],
  finishReason: string,
  usage: { input: number; output: number },
): CassetteReply {
  const parts: CassetteContent[] = [];
  for (const part of content) {
    if (part.type === "text") parts.push({ type: "text", text: part.text });
    else if (part.type === "tool-call")
      parts.push({ type: "tool-call", toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
  }
  return { content: parts, finishReason, usage };
}
