/**
 * The world of the credentials' real-process tests: a bundle with a `worker` whose `effects__append` calls wait for
 * a person (tool-approval, `approvers` as the test says) and an `attacker` whose model runs one shell command the
 * test writes (the built-in bash handlers re-exported with `network: host`, so that the command reaches the daemon
 * whether or not the sandbox gives tools a network of their own: what is tested here is the API's own guard), on
 * the loopback LLM; `goondan run` on it with auth on, its stderr kept (the login link is printed there).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killChild, type Defer } from "../../helpers/cleanups.ts";
import { startGoondanRun } from "../../helpers/goondan-process.ts";
import {
  lastUserText,
  startLoopbackLlm,
  systemPrompt,
  toolResults,
  type LoopbackRequest,
} from "../../helpers/loopback-llm.ts";

const EFFECTS_TOOL = new URL("../../fixtures/approvals/tools/effects.ts", import.meta.url).pathname;
const BASH = new URL("../../../src/base/tools/bash.ts", import.meta.url).pathname;

export interface AuthWorld {
  dir: string;
  stateRoot: string;
  base: string;
  port: number;
  stderr(): string;
  /** The daemon's JSON log lines so far. */
  lines: Record<string, unknown>[];
  effects(): string[];
  /** The attacker's shell command, as a function of nothing: the test sets it before it sends the event. */
  attack: { script: string };
  /** What the attacker's command printed (stdout), after its event was answered. */
  attackOutput(): string;
}

function bundleYaml(endpoint: string, approvers: string[] | undefined): string {
  const approval = approvers
    ? `{ tools: ["effects__*"], approvers: ${JSON.stringify(approvers)} }`
    : `{ tools: ["effects__*"] }`;
  return [
    "apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: loopback }",
    `spec: { provider: openai-compatible, model: loopback-model, endpoint: ${JSON.stringify(endpoint)}, apiKey: { valueFrom: { env: LOOPBACK_API_KEY } } }`,
    "---\napiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: effects }",
    "spec: { entry: ./effects.ts, config: { file: { valueFrom: { env: AUTH_EFFECTS_FILE } } }, exports: [{ name: append, parameters: { type: object, properties: { id: { type: string } }, required: [id] } }] }",
    "---\napiVersion: goondan.ai/v1\nkind: Tool\nmetadata: { name: hostshell }",
    "spec: { entry: ./hostshell.ts, config: { network: host }, exports: [{ name: exec, parameters: { type: object, properties: { command: { type: string } }, required: [command] } }] }",
    "---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: worker }",
    "spec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: ROLE=worker }, tools: [Tool/effects],",
    `  extensions: [{ ref: { kind: Extension, name: tool-approval, package: "@goondan/base" }, config: ${approval} }] }`,
    "---\napiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: attacker }",
    "spec: { modelConfig: { modelRef: Model/loopback }, prompt: { system: ROLE=attacker }, tools: [Tool/hostshell] }",
    "---\napiVersion: goondan.ai/v1\nkind: Swarm\nmetadata: { name: guarded }",
    "spec: { entryAgent: Agent/worker, agents: [Agent/worker, Agent/attacker], policy: { shutdown: { gracePeriodSeconds: 2 }, requestTimeoutMs: 60000 } }",
    "",
  ].join("\n");
}

export async function startAuthWorld(options: {
  defer: Defer;
  approvers?: string[];
  env?: Record<string, string>;
  /** A tokens file's text: written (0600) beside the bundle and passed as --tokens-file. */
  tokensFile?: string;
}): Promise<AuthWorld> {
  const attack = { script: "true" };
  let attackOutput = "";
  const llm = await startLoopbackLlm({
    respond: (request: LoopbackRequest) => {
      const role = systemPrompt(request).includes("ROLE=attacker") ? "attacker" : "worker";
      const results = toolResults(request);
      if (results.length > 0) {
        if (role === "attacker")
          attackOutput = String((results[0]?.content as { output?: { stdout?: string } })?.output?.stdout ?? "");
        return { text: `${role} done` };
      }
      if (role === "attacker") return { toolCalls: [{ name: "hostshell__exec", args: { command: attack.script } }] };
      return { toolCalls: [{ name: "effects__append", args: { id: lastUserText(request) } }] };
    },
  });
  options.defer(() => llm.close());
  const work = mkdtempSync(join(tmpdir(), "goondan-auth-run-"));
  options.defer(() => rmSync(work, { recursive: true, force: true }));
  const dir = join(work, "bundle");
  const stateRoot = join(work, "state");
  const effectsFile = join(work, "effects.txt");
  cpSync(EFFECTS_TOOL, join(dir, "effects.ts"));
  writeFileSync(join(dir, "hostshell.ts"), `export { handlers } from ${JSON.stringify(BASH)};\n`);
  writeFileSync(join(dir, "goondan.yaml"), bundleYaml(llm.url, options.approvers));
  const tokensFile = join(work, "tokens.yaml");
  if (options.tokensFile !== undefined) writeFileSync(tokensFile, options.tokensFile, { mode: 0o600 });
  let stderr = "";
  const run = await startGoondanRun({
    args: [
      dir,
      "--port",
      "0",
      "--state-root",
      stateRoot,
      ...(options.tokensFile === undefined ? [] : ["--tokens-file", tokensFile]),
    ],
    env: {
      LOOPBACK_API_KEY: "auth",
      AUTH_EFFECTS_FILE: effectsFile,
      GOONDAN_LOG_LEVEL: "info",
      GOONDAN_API_AUTH: "on",
      ...options.env,
    },
    onSpawn: (proc) => {
      options.defer(killChild(proc));
      void (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) stderr += decoder.decode(chunk);
      })();
    },
  });
  return {
    dir,
    stateRoot,
    base: run.base,
    port: run.port,
    stderr: () => stderr,
    lines: run.lines,
    effects: () =>
      existsSync(effectsFile)
        ? readFileSync(effectsFile, "utf8")
            .split("\n")
            .filter((line) => line !== "")
            .map((line) => line.split(" ")[0] as string)
        : [],
    attack,
    attackOutput: () => attackOutput,
  };
}

/** A JSON request to the world's API, with a bearer token or a cookie when given. */
export async function call(
  world: Pick<AuthWorld, "base">,
  method: string,
  path: string,
  options: { token?: string; cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${world.base}${path}`, {
    method,
    redirect: "manual",
    headers: {
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body, headers: response.headers };
}

/** Sends `input` to `agent` and waits for its answer (a held call answers `awaiting_approval`). */
export async function send(world: AuthWorld, token: string, agent: string, input: string) {
  const answer = await call(world, "POST", "/v1/events", {
    token,
    body: { agent, instanceKey: `${agent}-1`, input, wait: true, timeoutMs: 60_000 },
  });
  if (answer.status !== 200)
    throw new Error(`POST /v1/events answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body as { status: string; approvalIds?: string[]; response: string };
}

/**
 * The attacker's command: list the approvals and approve the held one as `alice`, each with curl and without any
 * token (the sandbox's environment holds none), printing `LIST <status>` and `APPROVE <status>`.
 */
export function selfApprovalScript(port: number, approvalId: string): string {
  const url = `http://127.0.0.1:${port}`;
  return [
    `echo "LIST $(curl -s -m 5 -o /dev/null -w '%{http_code}' ${url}/v1/approvals)"`,
    `echo "APPROVE $(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -H 'content-type: application/json' -d '{"decision":"approve","approver":"alice"}' ${url}/v1/approvals/${approvalId})"`,
    `echo "ENV $(env | grep -c -i -e token -e goondan_api)"`,
  ].join("; ");
}
