/**
 * Turn progress across real processes: real agent children on the loopback LLM, the coordinator delegating to the
 * worker; a submitter's `onProgress` receives every tool call of its turn and of the delegated turn, in order,
 * with the ending status and the failing code, and nothing of another submitter's turn.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { Orchestrator } from "../../src/orchestrator/orchestrator.ts";
import type { TurnProgress } from "../../src/protocol/turn-progress.ts";
import { bunProcessSpawner } from "../../src/supervision/process-spawner.ts";
import { startLoopbackLlm, systemPrompt, toolResults } from "../helpers/loopback-llm.ts";
import { chatEnv, delegatingModel, writeDelegatingChat } from "../fixtures/terminal/delegating-chat.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

const summary = (progress: TurnProgress) =>
  progress.kind !== "tool"
    ? progress.kind
    : `${progress.phase} ${progress.agent} ${progress.name}${progress.status ? ` ${progress.status}` : ""}${progress.code ? ` ${progress.code}` : ""}`;

describe("Orchestrator submit({ onProgress })", () => {
  it("hands over the tool calls of the turn and of the turn it delegated to, and only those", async () => {
    // The worker's first wait asks for -1 seconds, which fails argument validation (E_TOOL_INVALID_ARGS), then
    // it waits again, properly: one failing call and one that succeeds.
    let firstWait = true;
    const model = delegatingModel({ waitSeconds: 0 });
    const llm = await startLoopbackLlm({
      respond: (request) => {
        if (
          JSON.stringify(toolResults(request).at(-1)?.content ?? "").includes("E_TOOL_INVALID_ARGS") &&
          systemPrompt(request).includes("ROLE=worker")
        ) {
          return { toolCalls: [{ name: "wait__seconds", args: { seconds: 0 } }] };
        }
        const reply = model(request);
        if (reply.toolCalls?.[0]?.name === "wait__seconds" && firstWait) {
          firstWait = false;
          return { toolCalls: [{ name: "wait__seconds", args: { seconds: -1 } }] };
        }
        return reply;
      },
    });
    const dir = writeDelegatingChat({ endpoint: llm.url });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-progress-"));
    const orchestrator = new Orchestrator({
      bundle: await loadBundleOrThrow(dir),
      stateRoot,
      spawner: bunProcessSpawner({ output: "ignore" }),
      env: { ...process.env, ...chatEnv },
    });
    defer(async () => {
      await orchestrator.shutdown({ reason: "test over", gracePeriodMs: 1000 });
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });

    const seen: TurnProgress[] = [];
    const submitted = orchestrator.submit({ input: "please wait", onProgress: (progress) => void seen.push(progress) });
    const outcome = await submitted.outcome;
    expect(outcome.status).toBe("ok");
    expect(seen.map(summary)).toEqual([
      "started coordinator agents__request",
      "started worker wait__seconds",
      "ended worker wait__seconds error E_TOOL_INVALID_ARGS",
      "started worker wait__seconds",
      "ended worker wait__seconds ok",
      "ended coordinator agents__request ok",
    ]);
    expect(new Set(seen.map((progress) => progress.traceId)).size).toBe(1);
    expect(
      seen.every(
        (progress) =>
          progress.instanceKey === "chat" &&
          progress.kind === "tool" &&
          progress.turnId !== "" &&
          progress.toolCallId !== "",
      ),
    ).toBe(true);

    // A later submitter sees its own turn only; the first one's listener was dropped with its outcome.
    const before = seen.length;
    const other: TurnProgress[] = [];
    expect(
      (await orchestrator.submit({ input: "again", onProgress: (progress) => void other.push(progress) }).outcome)
        .status,
    ).toBe("ok");
    expect(seen).toHaveLength(before);
    expect(other.map(summary)).toEqual([
      "started coordinator agents__request",
      "started worker wait__seconds",
      "ended worker wait__seconds ok",
      "ended coordinator agents__request ok",
    ]);
  }, 30_000);
});
