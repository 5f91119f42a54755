import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { instancePaths } from "../../src/shared/state-paths.ts";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { COORDINATOR_REPLY, EXAMPLE_INPUT, POEM } from "./example-script.ts";
import { CASSETTE, recordExample, REPO } from "./record-example.ts";
import { storedRuntimeEvents } from "../helpers/stored-state.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";
import { type ProcessResult, runToExit } from "../helpers/goondan-process.ts";

realProcessTimeouts();

const work = mkdtempSync(join(tmpdir(), "goondan-example-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function goondan(options: { args: string[]; env?: Record<string, string | undefined> }): Promise<ProcessResult> {
  return runToExit({
    argv: [process.execPath, join(REPO, "bin", "goondan"), ...options.args],
    cwd: REPO,
    env: { PATH: process.env.PATH, HOME: work, GOONDAN_LOG_LEVEL: "info", ...options.env },
  });
}

type EventRecord = { type: string; traceId: string; spanId: string; parentSpanId?: string; toolName?: string };
const records = async (stateRoot: string, agent: string): Promise<EventRecord[]> =>
  (await storedRuntimeEvents({
    stateRoot,
    swarm: "example",
    agent,
    instanceKey: "example",
  })) as unknown as EventRecord[];
const runtimeEventTypes = async (stateRoot: string, agent: string): Promise<string[]> =>
  (await records(stateRoot, agent)).map((record) =>
    record.toolName ? `${record.type} ${record.toolName}` : record.type,
  );

describe("the bundled example (goondan.yaml at the repository root)", () => {
  it("replays the README's conversation offline: the coordinator delegates, the worker writes and counts with real tools", async () => {
    const stateRoot = join(work, "replay");
    const result = await goondan({
      args: ["run", "--input", EXAMPLE_INPUT, "--state-root", stateRoot],
      env: { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined },
    });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: `${COORDINATOR_REPLY}\n` });

    const worker = instancePaths({ stateRoot, swarmInstanceKey: "example", agent: "worker", instanceKey: "example" });
    expect(readFileSync(join(worker.workdir, "poem.txt"), "utf8")).toBe(`${POEM}\n`);
    expect((await runtimeEventTypes(stateRoot, "worker")).filter((type) => type.startsWith("tool.completed"))).toEqual([
      "tool.completed file-system__write",
      "tool.completed bash__exec",
    ]);
    expect((await runtimeEventTypes(stateRoot, "coordinator")).filter((type) => type.startsWith("tool."))).toEqual([
      "tool.called agents__request",
      "tool.completed agents__request",
    ]);

    // One trace across both processes: the worker's turn hangs under the coordinator's agents__request span.
    const delegation = (await records(stateRoot, "coordinator")).find(
      (record) => record.type === "tool.called" && record.toolName === "agents__request",
    )!;
    const workerTurn = (await records(stateRoot, "worker")).find((record) => record.type === "turn.started")!;
    expect({ traceId: workerTurn.traceId, parentSpanId: workerTurn.parentSpanId }).toEqual({
      traceId: delegation.traceId,
      parentSpanId: delegation.spanId,
    });

    // The orchestrator's record of each agent's process (the agent's own says its pid in its sandbox's namespace).
    const pids = result.stderr
      .split("\n")
      .filter((line) => line.includes('"msg":"shared agent process spawned"'))
      .map((line) => JSON.parse(line) as { pid: number; agent: string })
      .map((record) => `${record.agent}:${record.pid}`);
    expect(pids).toHaveLength(2);
    expect(new Set(pids.map((entry) => entry.split(":")[1])).size).toBe(2);

    // Running the README command again continues the same conversations and replays again.
    const again = await goondan({ args: ["run", "--input", EXAMPLE_INPUT, "--state-root", stateRoot] });
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: `${COORDINATOR_REPLY}\n` });
  }, 60_000);

  it("refuses clearly, without a network call, an input the cassette did not record", async () => {
    const result = await goondan({
      args: ["run", "--input", "Something else entirely", "--state-root", join(work, "other")],
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("E_MODEL_REPLAY_MISMATCH");
  }, 60_000);

  it("has a cassette that recording the scripted conversation reproduces exactly", async () => {
    const fresh = join(work, "fresh.jsonl");
    const { output } = await recordExample({ cassette: fresh });
    expect(output).toBe(`${COORDINATOR_REPLY}\n`);
    const lines = (file: string) =>
      readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown);
    expect(lines(fresh)).toEqual(lines(CASSETTE));
  }, 60_000);
});

describe("examples/anthropic", () => {
  it("is a valid bundle", async () => {
    const result = await loadBundle(join(REPO, "examples", "anthropic"));
    expect({ valid: result.valid, errors: result.errors }).toEqual({ valid: true, errors: [] });
  });

  it("does not start without ANTHROPIC_API_KEY and says which variable is missing", async () => {
    const result = await goondan({
      args: ["run", "examples/anthropic", "--input", "hi", "--state-root", join(work, "anthropic")],
      env: { ANTHROPIC_API_KEY: undefined },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
  }, 30_000);
});
