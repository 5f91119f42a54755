/**
 * Test helpers for the tool layer: ToolResource objects built directly (no config loader), an invocation
 * context with a runtime that fails loudly unless a test scripts it, and a recording fake runtime.
 */
import { resolve } from "node:path";
import type { ToolExportSpec, ToolResource } from "../../src/config/types.ts";
import type { JsonObject } from "../../src/shared/json.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import type { ToolInvocationContext } from "../../src/tools/execute-tool-call.ts";
import type { AgentToolRuntime, Message } from "../../src/tools/types.ts";

export const FIXTURES_DIR = resolve(import.meta.dir, "fixtures");

export function toolResource(options: {
  name: string;
  entry: string;
  exports: (Partial<ToolExportSpec> & { name: string })[];
  baseDir?: string;
  config?: JsonObject;
  errorMessageLimit?: number;
}): ToolResource {
  return {
    apiVersion: "goondan.ai/v1",
    kind: "Tool",
    metadata: { name: options.name },
    spec: {
      entry: options.entry,
      errorMessageLimit: options.errorMessageLimit ?? 1000,
      exports: options.exports.map((spec) => ({ parameters: { type: "object", properties: {} }, ...spec })),
      ...(options.config === undefined ? {} : { config: options.config }),
    },
    source: {
      file: resolve(options.baseDir ?? FIXTURES_DIR, "goondan.yaml"),
      docIndex: 0,
      baseDir: options.baseDir ?? FIXTURES_DIR,
    },
  };
}

export function assistantMessage(): Message {
  return {
    id: "msg_1",
    data: { role: "assistant", content: [] },
    metadata: {},
    createdAt: new Date(0).toISOString(),
    source: { type: "assistant" },
  };
}

/** A runtime whose every method throws: tools that should not touch ctx.runtime fail loudly if they do. */
export function unusedRuntime(): AgentToolRuntime {
  const fail = (method: string) => () => {
    throw new Error(`unexpected ctx.runtime.${method}() in this test`);
  };
  return {
    request: fail("request") as AgentToolRuntime["request"],
    send: fail("send"),
    spawn: fail("spawn"),
    list: fail("list"),
    catalog: fail("catalog"),
    restart: fail("restart"),
  };
}

export function invocationContext(overrides: Partial<ToolInvocationContext> = {}): ToolInvocationContext {
  return {
    agentName: "tester",
    instanceKey: "default",
    turnId: "turn_1",
    message: assistantMessage(),
    workdir: "/nonexistent-workdir",
    logger: silentLogger(),
    runtime: unusedRuntime(),
    ...overrides,
  };
}

export interface RecordedCall {
  method: keyof AgentToolRuntime;
  options: unknown;
}

/**
 * A recording runtime: each method answers with the scripted reply, and throws when a test did not
 * script it (fakes fail loudly).
 */
export function fakeRuntime(replies: Partial<{ [K in keyof AgentToolRuntime]: (options: never) => unknown }>): {
  runtime: AgentToolRuntime;
  calls: RecordedCall[];
} {
  const calls: RecordedCall[] = [];
  const method = (name: keyof AgentToolRuntime) => async (options: unknown) => {
    calls.push({ method: name, options });
    const reply = replies[name];
    if (reply === undefined) throw new Error(`fake runtime: ${name}() was not scripted in this test`);
    return (reply as (options: unknown) => unknown)(options);
  };
  const runtime = {
    request: method("request"),
    send: method("send"),
    spawn: method("spawn"),
    list: method("list"),
    catalog: method("catalog"),
    restart: method("restart"),
  } as unknown as AgentToolRuntime;
  return { runtime, calls };
}
