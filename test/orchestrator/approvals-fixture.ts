/**
 * What the approvals tests share: a copy of test/fixtures/approvals pointed at a loopback LLM, a scripted model
 * (the assistant appends the id the user names and then reports the tool's result; the coordinator hands the job to
 * the assistant), a real `goondan run` on it, and small HTTP helpers for events and approvals.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Defer } from "../helpers/cleanups.ts";
import { startGoondanRun, type GoondanProcess } from "../helpers/goondan-process.ts";
import {
  lastUserText,
  messageText,
  startLoopbackLlm,
  systemPrompt,
  type LoopbackLlm,
  type LoopbackReply,
  type LoopbackRequest,
} from "../helpers/loopback-llm.ts";
import { killChild } from "../helpers/cleanups.ts";

const FIXTURE = new URL("../fixtures/approvals", import.meta.url).pathname;

export interface ApprovalsWorld {
  dir: string;
  stateRoot: string;
  effectsFile: string;
  llm: LoopbackLlm;
  start(): Promise<{ proc: GoondanProcess; base: string }>;
  /** Ids the tool appended, in order. */
  effects(): string[];
}

function respond(request: LoopbackRequest): LoopbackReply {
  const messages = request.body.messages;
  const last = messages.at(-1);
  const job = lastUserText(request);
  if (systemPrompt(request).includes("ROLE=coordinator")) {
    if (last?.role === "user")
      return {
        toolCalls: [{ name: "agents__request", args: { target: "assistant", input: job, instanceKey: `for-${job}` } }],
      };
    return { text: `coordinator: ${messageText(last)}` };
  }
  if (last?.role === "user") return { toolCalls: [{ name: "effects__append", args: { id: job } }] };
  return { text: `tool said: ${messageText(last)}` };
}

export async function approvalsWorld(defer: Defer): Promise<ApprovalsWorld> {
  const work = mkdtempSync(join(tmpdir(), "goondan-approvals-"));
  defer(() => rmSync(work, { recursive: true, force: true }));
  const dir = join(work, "bundle");
  const stateRoot = join(work, "state");
  const effectsFile = join(work, "effects.txt");
  const llm = await startLoopbackLlm({ respond });
  defer(() => llm.close());
  cpSync(FIXTURE, dir, { recursive: true });
  const yaml = join(dir, "goondan.yaml");
  writeFileSync(yaml, readFileSync(yaml, "utf8").replace("__ENDPOINT__", llm.url));
  const start = async () => {
    const run = await startGoondanRun({
      args: [dir, "--port", "0", "--state-root", stateRoot],
      env: { LOOPBACK_API_KEY: "approvals", GOONDAN_LOG_LEVEL: "info", APPROVALS_EFFECTS_FILE: effectsFile },
      onSpawn: (proc: GoondanProcess) => defer(killChild(proc)),
    });
    return { proc: run.proc, base: run.base };
  };
  const effects = () =>
    existsSync(effectsFile)
      ? readFileSync(effectsFile, "utf8")
          .trim()
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => line.split(" ")[0] as string)
      : [];
  return { dir, stateRoot, effectsFile, llm, start, effects };
}

export interface Outcome {
  status: string;
  agent: string;
  eventId: string;
  turnId: string;
  response: string;
  finishReason: string;
  approvalIds?: string[];
}

export interface ApprovalRow {
  id: string;
  agent: string;
  instanceKey: string;
  toolName: string;
  arguments: Record<string, unknown>;
  requestedAt: string;
  expiresAt?: string;
  turnId: string;
}

export async function send(base: string, body: Record<string, unknown>): Promise<Outcome> {
  const response = await fetch(`${base}/v1/events`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ wait: true, timeoutMs: 30_000, ...body }),
  });
  if (response.status !== 200) throw new Error(`POST /v1/events answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Outcome;
}

export async function pendingApprovals(base: string): Promise<ApprovalRow[]> {
  const response = await fetch(`${base}/v1/approvals`);
  if (response.status !== 200)
    throw new Error(`GET /v1/approvals answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { approvals: ApprovalRow[] }).approvals;
}

export async function decide(
  base: string,
  id: string,
  body: Record<string, unknown>,
): Promise<{
  status: number;
  body: { approval?: { decision?: string }; outcome?: Outcome; error?: { code: string } };
}> {
  const response = await fetch(`${base}/v1/approvals/${id}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { approval?: { decision?: string }; outcome?: Outcome; error?: { code: string } },
  };
}
