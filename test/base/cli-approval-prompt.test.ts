/**
 * The `cli` connector's inline approval prompt: with fakes (a held reply, y / n / end of input, a decision refused
 * because someone else decided first), and with real processes: `goondan run` with a cli Connection on piped stdin
 * (`promptApprovals: true`) asks `[y/N]` for the held call, and `y` runs it and prints the resumed turn's reply.
 */
import { describe, expect, it } from "bun:test";
import { PassThrough } from "node:stream";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCliLoop } from "../../src/base/connectors/cli.ts";
import type { ConnectorApprovals, ConnectorReply } from "../../src/connector/connector-types.ts";
import type { Approval } from "../../src/protocol/approval.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, until } from "../helpers/goondan-process.ts";
import { outcome } from "../helpers/outcomes.ts";
import { approvalsWorld } from "../orchestrator/approvals-fixture.ts";

const defer = useCleanups();

const held = (ids: string[]): ConnectorReply => ({
  ...outcome({ eventId: "e1", response: "" }),
  status: "awaiting_approval",
  finishReason: "awaiting_approval",
  approvalIds: ids,
});
const approvalOf = (id: string): Approval => ({
  id,
  agent: "ops",
  instanceKey: "k",
  eventId: "e1",
  turnId: "t1",
  traceId: "0",
  toolCallId: "c1",
  toolName: "bash__exec",
  arguments: { command: "ls" },
  requestedAt: 1,
});

function fakeApprovals(answer: (id: string, decision: string) => ConnectorReply | Error | undefined) {
  const decisions: string[] = [];
  const approvals: ConnectorApprovals = {
    get: async (id) => approvalOf(id),
    decide: async (id, { decision, reason }) => {
      decisions.push(`${id}:${decision}${reason ? `:${reason}` : ""}`);
      const result = answer(id, decision);
      if (result instanceof Error) throw result;
      return { approval: approvalOf(id), ...(result === undefined ? {} : { outcome: result }) };
    },
  };
  return { approvals, decisions };
}

async function chat(options: {
  lines: string;
  approvals: ConnectorApprovals;
  interactive?: boolean;
  config?: JsonObject;
}) {
  let output = "";
  const input = new PassThrough();
  input.end(options.lines);
  let sent = 0;
  await runCliLoop({
    ctx: {
      request: async () => (sent++ === 0 ? held(["appr_1"]) : outcome({ eventId: "e2", response: "next" })),
      config: options.config ?? {},
      signal: new AbortController().signal,
      approvals: options.approvals,
    },
    io: { input, write: (text) => (output += text), interactive: options.interactive ?? true },
  });
  return output;
}

describe("the cli connector's approval prompt (fakes)", () => {
  it("shows the held call and approves it on y, then prints the resumed turn's reply", async () => {
    const fake = fakeApprovals(() => outcome({ eventId: "e1", response: "ran it" }));
    const output = await chat({ lines: "do it\ny\n", approvals: fake.approvals });
    expect(output).toContain('ops wants to run bash__exec {"command":"ls"}\nallow? [y/N] ');
    expect(output).toContain("ran it\n");
    expect(fake.decisions).toEqual(["appr_1:approve"]);
  });

  it("denies on anything but y, with a reason, and keeps reading lines", async () => {
    const fake = fakeApprovals(() => outcome({ eventId: "e1", response: "fine, I will not" }));
    const output = await chat({ lines: "do it\nn\nsomething else\n", approvals: fake.approvals });
    expect(fake.decisions).toEqual(["appr_1:deny:denied at the terminal"]);
    expect(output).toContain("fine, I will not\n");
    expect(output).toContain("next\n");
  });

  it("leaves the call pending when the input ends, naming the command that decides it", async () => {
    const fake = fakeApprovals(() => undefined);
    const output = await chat({ lines: "do it\n", approvals: fake.approvals });
    expect(fake.decisions).toEqual([]);
    expect(output).toContain("awaiting approval: goondan approve appr_1\n");
  });

  it("prints a refused decision as an error line", async () => {
    const fake = fakeApprovals(() => Object.assign(new Error("decided already"), { code: "E_APPROVAL_DECIDED" }));
    const output = await chat({ lines: "do it\ny\n", approvals: fake.approvals });
    expect(output).toContain("error [E_APPROVAL_DECIDED]: decided already\n");
    expect(output).toContain("awaiting approval: goondan approve appr_1\n");
  });

  it("does not ask on piped input unless the config says so", async () => {
    const fake = fakeApprovals(() => outcome({ eventId: "e1", response: "ran it" }));
    const output = await chat({ lines: "do it\ny\n", approvals: fake.approvals, interactive: false });
    expect(fake.decisions).toEqual([]);
    expect(output).toContain("awaiting approval: goondan approve appr_1\n");
  });
});

describe("the cli connector's approval prompt (real processes)", () => {
  it("asks [y/N] on piped stdin with promptApprovals, and y runs the held call and prints the resumed reply", async () => {
    const world = await approvalsWorld(defer);
    appendFileSync(
      join(world.dir, "goondan.yaml"),
      `---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: terminal }
spec:
  connectorRef: { kind: Connector, name: cli, package: "@goondan/base" }
  swarmRef: Swarm/approvals
  config: { promptApprovals: true, instanceKey: terminal }
  ingress:
    rules:
      - match: { event: stdin_message }
        route: { agentRef: Agent/assistant }
`,
    );
    const proc = Bun.spawn(
      [process.execPath, GOONDAN_BIN, "run", world.dir, "--port", "0", "--state-root", world.stateRoot],
      {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        env: {
          ...process.env,
          LOOPBACK_API_KEY: "approvals",
          GOONDAN_LOG_LEVEL: "info",
          APPROVALS_EFFECTS_FILE: world.effectsFile,
        },
      },
    );
    defer(async () => {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
    });
    let output = "";
    // With a terminal connector, the chat has stdout and the logs go to stderr: both are read here.
    for (const stream of [proc.stdout, proc.stderr]) {
      void (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of stream) output += decoder.decode(chunk);
      })();
    }
    const seen = (text: string) =>
      until(() => output.includes(text), { timeoutMs: 20_000 }).catch((error: Error) => {
        throw new Error(`${error.message}: waiting for ${text}; output so far:\n${output.slice(-3000)}`);
      });
    await seen('"msg":"ready"');
    proc.stdin.write("prompt1\n");
    proc.stdin.flush();
    await seen("allow? [y/N]");
    expect(output).toContain("assistant wants to run effects__append");
    expect(world.effects()).toEqual([]);
    proc.stdin.write("y\n");
    proc.stdin.flush();
    await seen('tool said: {"status":"ok"');
    expect(world.effects()).toEqual(["prompt1"]);
    expect(
      readFileSync(world.effectsFile, "utf8")
        .split("\n")
        .filter((line) => line !== "").length,
    ).toBe(1);
  }, 60_000);
});
