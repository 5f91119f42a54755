/**
 * A state root an older goondan kept in JSONL files (test/fixtures/jsonl-state, written by running that goondan for
 * real: one finished turn, and one turn killed with SIGKILL in the middle of a tool call, under an instance key the
 * older naming spelled with `%`) is moved to today's names and imported once by today's `goondan run`: the finished
 * conversation is continued, the interrupted event is answered (its tool call told to the model as interrupted, not
 * run again), the runtime events are readable, and the old files are kept aside.
 */
import { describe, expect, it } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv, writeSwarmBundle } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups, killChild } from "../helpers/cleanups.ts";
import { startGoondanRun, until } from "../helpers/goondan-process.ts";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";
import { storedInstanceState } from "../helpers/stored-state.ts";

const defer = useCleanups();
const FIXTURE = new URL("../fixtures/jsonl-state/state", import.meta.url).pathname;

describe("a state root an older goondan kept in JSONL", () => {
  it("is imported once by goondan run: conversations continue and the interrupted event is answered", async () => {
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-jsonl-import-"));
    defer(() => rmSync(stateRoot, { recursive: true, force: true }));
    cpSync(FIXTURE, stateRoot, { recursive: true });
    const llm = await startLoopbackLlm({
      respond: (request) => {
        const last = request.body.messages.at(-1);
        return { text: last?.role === "tool" ? "the sleep was cut short; moving on" : "I remember: you said hello" };
      },
    });
    defer(() => llm.close());
    const dir = writeSwarmBundle({ endpoint: llm.url });
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const daemon = await startGoondanRun({
      args: [dir, "--port", "0", "--state-root", stateRoot],
      env: { ...childEnv, GOONDAN_LOG_LEVEL: "info" },
      onSpawn: (proc) => defer(killChild(proc)),
    });
    expect(
      daemon.lines.find((line) => line.msg === "imported the state an older goondan kept in JSONL files"),
    ).toMatchObject({ instances: 2, events: 1 });
    expect(daemon.lines.find((line) => line.msg === "resumed accepted events")).toMatchObject({ resumed: 1 });

    // The interrupted event runs again: the model is told its tool call was interrupted and answers.
    const interrupted = await until(() =>
      llm.requests.find((request) => request.body.messages.at(-1)?.role === "tool"),
    );
    expect(JSON.stringify(interrupted.body.messages.at(-1))).toContain("E_TOOL_INTERRUPTED");
    expect(interrupted.body.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"]);

    // The finished conversation continues.
    const reply = (await (
      await fetch(`${daemon.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "what did I say?", wait: true }),
      })
    ).json()) as { response: string };
    expect(reply.response).toBe("I remember: you said hello");
    const continued = llm.requests.at(-1)!;
    expect(continued.body.messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);

    // Runtime events of both eras, through the API.
    const events = (await (await fetch(`${daemon.base}/v1/instances/coordinator/duo/events`)).json()) as {
      events: { type: string }[];
    };
    expect(events.events.filter((event) => event.type === "turn.completed")).toHaveLength(2);
    daemon.proc.kill("SIGTERM");
    expect(await daemon.proc.exited).toBe(0);

    // Imported once: the old files are aside, under today's directory name.
    const instances = join(stateRoot, "workspaces", "duo", "instances", "coordinator");
    expect(readdirSync(instances).sort()).toEqual(["+c0ac+c6a9+c790-1", "duo"]);
    expect(existsSync(join(instances, "duo", "imported-jsonl", "base.jsonl"))).toBe(true);
    expect(existsSync(join(instances, "duo", "base.jsonl"))).toBe(false);
    const recovered = await storedInstanceState({
      stateRoot,
      swarm: "duo",
      agent: "coordinator",
      instanceKey: "사용자-1",
    });
    expect(recovered.messages.map((message) => message.data.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  }, 30_000);
});
