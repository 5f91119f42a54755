import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import type { ExtensionResource } from "../../src/config/types.ts";
import { EventBus } from "../../src/agent/extensions/event-bus.ts";
import { loadExtensions, type ExtensionUse } from "../../src/agent/extensions/load-extensions.ts";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { createLogger, silentLogger } from "../../src/shared/logger.ts";
import { register as registerWindow, windowRemovals } from "../../src/base/extensions/message-window.ts";
import { register as registerGuard } from "../../src/base/extensions/required-tools-guard.ts";
import { register as registerLogging } from "../../src/base/extensions/logging.ts";
import { validModelView } from "../../src/agent/conversation/model-view.ts";
import { messageText } from "../../src/agent/conversation/message-factory.ts";
import type { Message } from "../../src/tools/types.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { TEST_INSTANCE, testEnv, userEvent, type TestEnv } from "./support/test-env.ts";

const FIXTURES = new URL("../fixtures/agent/extensions", import.meta.url).pathname;
const use = (name: string, config = {}): ExtensionUse => ({
  resource: {
    apiVersion: "goondan.ai/v1",
    kind: "Extension",
    metadata: { name },
    spec: { entry: `./${name}.ts` },
    source: { file: join(FIXTURES, "goondan.yaml"), docIndex: 0, baseDir: FIXTURES },
  } as ExtensionResource,
  config,
});

async function load(harness: TestEnv, uses: ExtensionUse[], events = new EventBus()): Promise<void> {
  await loadExtensions({
    extensions: uses,
    agent: { name: "assistant", instanceKey: "main", requiredTools: [], tools: [] },
    pipeline: harness.env.pipeline,
    registerTool: (item, handler) => harness.env.registry.register(item, handler),
    state: harness.extensionState,
    events,
    logger: silentLogger(),
  });
}

describe("loadExtensions", () => {
  it("registers pipeline middleware, dynamic tools, events and persisted state", async () => {
    const scripted = scriptedModel([
      { toolCalls: [{ name: "counter__read", args: {} }] },
      { text: "done" },
      { text: "again" },
    ]);
    const harness = testEnv({ model: scripted.model });
    const events = new EventBus();
    const bumped: unknown[] = [];
    events.on("counter.bumped", (payload) => bumped.push(payload));
    await load(harness, [use("counter", { step: 2 })], events);
    await runTurn({ env: harness.env, event: userEvent("one") });
    expect(scripted.calls[0]?.tools?.map((tool) => tool.name)).toEqual(["counter__read"]);
    await runTurn({ env: harness.env, event: userEvent("two") });
    expect(bumped).toHaveLength(2);
    expect(harness.store.instanceState(TEST_INSTANCE).extensionState.counter).toBe(4);
  });

  it("reports a throwing register as a config error naming the extension", async () => {
    const harness = testEnv({ model: scriptedModel().model });
    const failure = load(harness, [use("broken")]);
    await expect(failure).rejects.toMatchObject({ code: "E_CONFIG_EXTENSION_LOAD" });
    await expect(load(harness, [use("broken")])).rejects.toThrow(/Extension\/broken/);
  });

  it("says the thrown text once, in the error and in the logged line", async () => {
    const harness = testEnv({ model: scriptedModel().model });
    const failure = await load(harness, [use("broken")]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: "E_CONFIG_EXTENSION_LOAD" });
    const lines: string[] = [];
    createLogger("agent", { level: "info", destination: { write: (line: string) => void lines.push(line) } }).error(
      { err: failure },
      "agent failed to start",
    );
    const logged = (JSON.parse(lines[0] ?? "{}") as { err?: { message?: string; stack?: string } }).err;
    const thrown = "this extension is broken on purpose";
    expect((failure as Error).message.split(thrown)).toHaveLength(2);
    expect(logged?.message?.split(thrown)).toHaveLength(2);
    expect(logged?.stack).toContain("broken.ts");
  });

  it("reports a module without register and a missing entry as config errors", async () => {
    const harness = testEnv({ model: scriptedModel().model });
    await expect(load(harness, [use("no-register")])).rejects.toMatchObject({ code: "E_CONFIG_EXTENSION_LOAD" });
    await expect(load(harness, [use("does-not-exist")])).rejects.toMatchObject({ code: "E_CONFIG_EXTENSION_LOAD" });
  });
});

const msg = (id: string, role: "user" | "assistant" | "tool", toolCallId?: string): Message => ({
  id,
  data:
    role === "tool"
      ? {
          role,
          content: [
            { type: "tool-result", toolCallId: toolCallId ?? "", toolName: "t__x", output: { type: "json", value: 1 } },
          ],
        }
      : role === "assistant" && toolCallId !== undefined
        ? { role, content: [{ type: "tool-call", toolCallId, toolName: "t__x", input: {} }] }
        : { role, content: id },
  metadata: {},
  createdAt: "",
  source: { type: role },
});

describe("message-window", () => {
  it("keeps the last N messages without orphaning tool results", () => {
    const messages = [
      msg("u1", "user"),
      msg("a1", "assistant", "c1"),
      msg("t1", "tool", "c1"),
      msg("a2", "assistant", "c2"),
      msg("t2", "tool", "c2"),
      msg("u2", "user"),
    ];
    for (let max = 1; max <= messages.length; max++) {
      const removed = new Set(windowRemovals(messages, { maxMessages: max }));
      const kept = messages.filter((message) => !removed.has(message.id));
      expect(validModelView(kept).dropped).toEqual([]);
      expect(kept.length).toBeLessThanOrEqual(max);
    }
  });

  it("trims the stored conversation before each step", async () => {
    const scripted = scriptedModel([{ text: "a" }, { text: "b" }, { text: "c" }]);
    const harness = testEnv({ model: scripted.model });
    registerWindow({ ...fakeApi(harness), name: "message-window" }, { maxMessages: 3 });
    for (const input of ["one", "two", "three"]) await runTurn({ env: harness.env, event: userEvent(input) });
    expect(scripted.calls[2]!.prompt.filter((message) => message.role !== "system")).toHaveLength(3);
    expect((await harness.committed()).length).toBeLessThanOrEqual(4);
  });

  it("archives what it trims: out of the process's conversation, read back with ctx.conversation.older()", async () => {
    const scripted = scriptedModel([{ text: "a" }, { text: "b" }, { text: "c" }]);
    const harness = testEnv({ model: scripted.model });
    registerWindow({ ...fakeApi(harness), name: "message-window" }, { maxMessages: 3 });
    let recalled: string[] = [];
    harness.env.pipeline.register("turn", async (ctx) => {
      const result = await ctx.next();
      const oldest = ctx.messages[0];
      recalled = (await ctx.conversation.older({ before: oldest?.id, limit: 10 })).map(messageText);
      return result;
    });
    for (const input of ["one", "two", "three"]) {
      await runTurn({ env: harness.env, event: userEvent(input) });
      await harness.finishTurn();
    }
    expect(harness.env.conversation.messages.length).toBeLessThanOrEqual(4);
    expect(recalled.slice(0, 2)).toEqual(["one", "a"]);
    expect((await harness.store.olderMessages(TEST_INSTANCE, {})).map(messageText)).toEqual([
      "one",
      "a",
      "two",
      "b",
      "three",
      "c",
    ]);
  });

  it("deletes what it trims with keepHistory: false", async () => {
    const scripted = scriptedModel([{ text: "a" }, { text: "b" }, { text: "c" }]);
    const harness = testEnv({ model: scripted.model });
    registerWindow({ ...fakeApi(harness), name: "message-window" }, { maxMessages: 3, keepHistory: false });
    for (const input of ["one", "two", "three"]) await runTurn({ env: harness.env, event: userEvent(input) });
    await harness.finishTurn();
    expect((await harness.store.olderMessages(TEST_INSTANCE, {})).map(messageText)).toEqual(
      harness.durableMessages().map(messageText),
    );
  });
});

function fakeApi(harness: TestEnv, requiredTools: string[] = []) {
  return {
    name: "test-extension",
    agent: { name: "assistant", instanceKey: "main", requiredTools, tools: [] },
    pipeline: { register: harness.env.pipeline.register.bind(harness.env.pipeline) },
    tools: {
      register: (
        item: Parameters<typeof harness.registerTool>[0],
        handler: Parameters<typeof harness.registerTool>[1],
      ) => harness.registerTool(item, handler),
      unregister: () => false,
    },
    state: { get: () => undefined, set: async () => {} },
    events: new EventBus(),
    logger: silentLogger(),
    model: { generateText: () => Promise.reject(new Error("no model in this test")) },
  };
}

describe("required-tools-guard", () => {
  it("refuses to end the turn until the required tools were called", async () => {
    const scripted = scriptedModel([
      { text: "I am done" },
      { toolCalls: [{ name: "audit__log", args: {} }] },
      { text: "now done" },
    ]);
    const harness = testEnv({ model: scripted.model });
    harness.registerTool({ name: "audit__log", parameters: { type: "object", properties: {} } }, () => "logged");
    registerGuard(fakeApi(harness, ["audit"]), {});
    const { result } = await runTurn({ env: harness.env, event: userEvent("do it") });
    expect(result).toMatchObject({ status: "ok", response: "now done", steps: 3 });
    const reminder = scripted.calls[1]!.prompt.at(-1);
    expect(JSON.stringify(reminder)).toContain("audit");
    scripted.assertDone();
  });

  it("lets the turn end after maxReminders", async () => {
    const scripted = scriptedModel([{ text: "no" }, { text: "still no" }]);
    const harness = testEnv({ model: scripted.model });
    registerGuard(fakeApi(harness, ["audit__log"]), { maxReminders: 1 });
    const { result } = await runTurn({ env: harness.env, event: userEvent("do it") });
    expect(result).toMatchObject({ status: "ok", response: "still no", steps: 2 });
  });

  it("takes the public requiredTools (any one of them suffices) and errorMessage as the reminder", async () => {
    const scripted = scriptedModel([
      { text: "I am done" },
      { toolCalls: [{ name: "audit__log", args: {} }] },
      { text: "now done" },
    ]);
    const harness = testEnv({ model: scripted.model });
    harness.registerTool({ name: "audit__log", parameters: { type: "object", properties: {} } }, () => "logged");
    registerGuard(fakeApi(harness), { requiredTools: ["audit__log", "report__send"], errorMessage: "Log it first." });
    const { result } = await runTurn({ env: harness.env, event: userEvent("do it") });
    expect(result).toMatchObject({ status: "ok", response: "now done", steps: 3 });
    expect(JSON.stringify(scripted.calls[1]!.prompt.at(-1))).toContain("Log it first.");
    scripted.assertDone();
  });
});

describe("logging", () => {
  it("wraps a turn without changing its result", async () => {
    const scripted = scriptedModel([{ text: "logged" }]);
    const harness = testEnv({ model: scripted.model });
    registerLogging(fakeApi(harness), { level: "debug" });
    expect((await runTurn({ env: harness.env, event: userEvent("x") })).result.response).toBe("logged");
  });
});
