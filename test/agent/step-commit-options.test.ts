/**
 * How a step's commit before its tool calls asks to be waited on (run-step.ts, protocol/instance-state.ts
 * CommitOptions): `sync: false` when every call is the built-in `agents` tool's (what it does is a request to the
 * orchestrator, written after the step in the same ordered log) or idempotent (running it again does nothing more),
 * a plain commit as soon as any call may act outside.
 */
import { describe, expect, it } from "bun:test";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { loadBuiltinPackage } from "../../src/config/builtin-package.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import type { ToolResource } from "../../src/config/types.ts";
import type { CommitOptions } from "../../src/protocol/instance-state.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { testEnv, userEvent } from "./support/test-env.ts";

async function stepCommitOptions(calls: string[]): Promise<(CommitOptions | undefined)[]> {
  const scripted = scriptedModel([
    { toolCalls: calls.map((name, index) => ({ id: `c${index}`, name })) },
    { text: "done" },
  ]);
  const t = testEnv({ model: scripted.model });
  const builtins = await loadBuiltinPackage();
  const agents = builtins.find(
    (loaded) => loaded.resource.kind === "Tool" && loaded.resource.metadata.name === "agents",
  );
  await t.env.registry.addResource(agents?.resource as ToolResource);
  t.registerTool(
    { name: "disk__wipe", description: "wipes", parameters: { type: "object", properties: {} } },
    () => "wiped",
  );
  t.env.registry.register(
    { name: "disk__read", description: "reads", parameters: { type: "object", properties: {} } },
    () => "read",
    { idempotent: true },
  );
  const seen: (CommitOptions | undefined)[] = [];
  const commit = t.env.commit;
  t.env.commit = (changes, options) => {
    seen.push(options);
    return commit(changes, options);
  };
  const { result } = await runTurn({ env: t.env, event: userEvent("go") });
  expect(result.status).toBe("ok");
  return seen;
}

describe("a step's commit before its tool calls", () => {
  it("asks for no sync when every call is the built-in agents tool's", async () => {
    expect(await stepCommitOptions(["agents__catalog", "agents__list"])).toEqual([{ sync: false }]);
  });

  it("is a plain commit when a call may act outside the orchestrator", async () => {
    expect(await stepCommitOptions(["disk__wipe"])).toEqual([{}]);
    expect(await stepCommitOptions(["agents__catalog", "disk__wipe"])).toEqual([{}]);
    expect(await stepCommitOptions(["disk__read", "disk__wipe"])).toEqual([{}]);
  });

  it("asks for no sync when every call is idempotent, or idempotent and the agents tool's", async () => {
    expect(await stepCommitOptions(["disk__read"])).toEqual([{ sync: false }]);
    expect(await stepCommitOptions(["disk__read", "agents__list"])).toEqual([{ sync: false }]);
  });

  it("takes the built-in tools that only read or compute as idempotent, and none that act", async () => {
    const builtins = await loadBuiltinPackage();
    const registry = await ToolRegistry.fromResources(
      builtins.filter((loaded) => loaded.resource.kind === "Tool").map((loaded) => loaded.resource as ToolResource),
    );
    const idempotent = registry.names().filter((name) => registry.get(name)?.idempotent === true);
    expect(idempotent).toContain("file-system__read");
    expect(idempotent).toContain("json-query__query");
    expect(idempotent).toContain("text-transform__replace");
    for (const acts of ["file-system__write", "bash__exec", "http-fetch__post", "agents__request", "telegram__send"])
      expect(idempotent).not.toContain(acts);
  });
});
