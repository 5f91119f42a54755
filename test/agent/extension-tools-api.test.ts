/**
 * `api.tools` as loadExtensions hands it out: `register(item, handler, {timeoutMs})` passes the deadline on, and
 * `unregister(name)` removes only the calling extension's own tools (an MCP bridge drops a server's vanished tool).
 */
import { describe, expect, it } from "bun:test";
import { EventBus } from "../../src/agent/extensions/event-bus.ts";
import { ExtensionState } from "../../src/agent/extensions/extension-state.ts";
import { loadExtensions } from "../../src/agent/extensions/load-extensions.ts";
import { PipelineRegistry } from "../../src/agent/extensions/pipeline-registry.ts";
import type { ExtensionApi } from "../../src/agent/extensions/types.ts";
import type { ExtensionResource } from "../../src/config/types.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";

const resource = (name: string): ExtensionResource =>
  ({
    apiVersion: "goondan.ai/v1",
    kind: "Extension",
    metadata: { name },
    spec: { entry: `/virtual/${name}.ts` },
    source: { file: "/virtual/goondan.yaml", docIndex: 0, baseDir: "/virtual" },
  }) as ExtensionResource;

async function loadWith(registers: Record<string, (api: ExtensionApi) => void>): Promise<ToolRegistry> {
  const registry = new ToolRegistry();
  await loadExtensions({
    extensions: Object.keys(registers).map((name) => ({ resource: resource(name), config: {} })),
    agent: { name: "assistant", instanceKey: "main", requiredTools: [], tools: [], bundleDir: "/virtual" },
    pipeline: new PipelineRegistry(),
    registerTool: (item, handler, extensionName, options) =>
      registry.register(item, handler, {
        source: { type: "extension", name: extensionName },
        ...(options?.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      }),
    unregisterTool: (name, extensionName) => registry.unregister(name, { owner: extensionName }),
    state: new ExtensionState({}, async () => {}),
    events: new EventBus(),
    logger: silentLogger(),
    importModule: async (path) => ({ register: registers[path.replace("/virtual/", "").replace(".ts", "")] }),
  });
  return registry;
}

describe("api.tools", () => {
  it("register passes options.timeoutMs on as the tool's deadline", async () => {
    const registry = await loadWith({
      timed: (api) => api.tools.register({ name: "timed__slow" }, () => null, { timeoutMs: 1234 }),
    });
    expect(registry.get("timed__slow")?.timeoutMs).toBe(1234);
  });

  it("unregister removes the extension's own tool and refuses another extension's", async () => {
    const results: boolean[] = [];
    let ownApi: ExtensionApi | undefined;
    const registry = await loadWith({
      first: (api) => {
        ownApi = api;
        api.tools.register({ name: "first__a" }, () => null);
      },
      second: (api) => {
        api.tools.register({ name: "second__b" }, () => null);
        results.push(api.tools.unregister("first__a"));
      },
    });
    expect(results).toEqual([false]);
    expect(ownApi?.tools.unregister("first__a")).toBe(true);
    expect(ownApi?.tools.unregister("first__a")).toBe(false);
    expect(registry.names()).toEqual(["second__b"]);
  });
});
