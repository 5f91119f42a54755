/**
 * `goondan restart --agent A --instance K --fresh` as real processes (bin/goondan, real agent children on the
 * loopback LLM): of two instances of one agent, only K's child is restarted and only K's next model call
 * comes without its earlier history; the other instance keeps its child and its conversation.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { messageText, lastUserText, startLoopbackLlm, type LoopbackRequest } from "../../helpers/loopback-llm.ts";
import { liveEnv, liveModel, writeLiveBundle } from "../../fixtures/reload/live-swarm.ts";
import { GOONDAN_BIN, startGoondanRun, until } from "../../helpers/goondan-process.ts";
import { useCleanups } from "../../helpers/cleanups.ts";

const defer = useCleanups();

async function goondan(args: string[], env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, GOONDAN_BIN, ...args], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

/** Everything the model was shown in the request that carried `input` as its last user message. */
function historyOf(requests: LoopbackRequest[], input: string): string {
  const request = requests.findLast((candidate) => lastUserText(candidate) === input);
  if (!request) throw new Error(`the model never saw ${JSON.stringify(input)}`);
  return request.body.messages.map(messageText).join("\n");
}

describe("goondan restart --instance", () => {
  it("clears one instance's conversation and restarts only its child, leaving the agent's other instance as it was", async () => {
    const llm = await startLoopbackLlm({ respond: liveModel });
    const dir = writeLiveBundle({ endpoint: llm.url });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-restart-instance-"));
    defer(async () => {
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    const env = { ...liveEnv, GOONDAN_LOG_LEVEL: "info" };
    const daemon = await startGoondanRun({
      args: [dir, "--port", "0", "--state-root", stateRoot],
      env,
      readyTimeoutMs: 20_000,
      onSpawn: (spawned) =>
        defer(() => {
          if (spawned.exitCode === null && spawned.signalCode === null) spawned.kill("SIGKILL");
        }),
    });
    const ask = async (instanceKey: string, input: string) => {
      const response = await fetch(`${daemon.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ agent: "other", instanceKey, input, wait: true }),
      });
      return (await response.json()) as { status: string; response: string };
    };
    // The instance's child (its lane in the agent's shared process): the process and when the child became ready.
    const childOf = async (instanceKey: string) => {
      const body = (await (await fetch(`${daemon.base}/v1/processes`)).json()) as {
        processes: { agent: string; instanceKey: string; pid: number | null; startedAt: string | null }[];
      };
      const row = body.processes.find(
        (candidate) => candidate.agent === "other" && candidate.instanceKey === instanceKey,
      );
      return row?.pid == null ? null : { pid: row.pid, startedAt: row.startedAt };
    };

    await Promise.all([ask("k1", "k1 first words"), ask("k2", "k2 first words")]);
    const [k1Child, k2Child] = [await childOf("k1"), await childOf("k2")];
    expect(k1Child).not.toBeNull();
    expect(k2Child).not.toBeNull();

    const restarted = await goondan(
      ["restart", "--agent", "other", "--instance", "k1", "--fresh", "--port", String(daemon.port)],
      env,
    );
    expect(restarted).toMatchObject({
      code: 0,
      stdout: "restart accepted: agent other instance k1 with a fresh conversation\n",
      stderr: "",
    });
    const reloaded = await until(() => daemon.lines.find((line) => line.msg === "reloaded"), { timeoutMs: 10_000 });
    expect(reloaded.restarted).toEqual(["other/k1"]);

    expect((await ask("k1", "k1 second words")).status).toBe("ok");
    expect((await ask("k2", "k2 second words")).status).toBe("ok");
    expect(historyOf(llm.requests, "k1 second words")).not.toContain("k1 first words");
    expect(historyOf(llm.requests, "k2 second words")).toContain("k2 first words");
    // k2 untouched; k1 started again (in the agent's same shared process, which keeps running for k2).
    expect(await childOf("k2")).toEqual(k2Child);
    const k1Again = await childOf("k1");
    expect(k1Again?.startedAt).not.toBe(k1Child?.startedAt);
    expect(k1Again?.pid).toBe(k2Child?.pid as number);
    expect(llm.unexpected).toEqual([]);

    daemon.proc.kill("SIGTERM");
    expect(await daemon.proc.exited).toBe(0);
  }, 30_000);
});
