/**
 * tool-search gives the model a search tool: the tools a search finds are offered from the next step on
 * (each search replacing the last), the selection survives turns (persistSelection), and the catalog can
 * start with the search tool alone.
 */
import { describe, expect, it } from "bun:test";
import { runTurn } from "../../src/agent/loop/run-turn.ts";
import { searchTools } from "../../src/base/extensions/tool-search.ts";
import type { ToolCatalogItem } from "../../src/tools/types.ts";
import { tempStateRoot, userEvent } from "../agent/support/test-env.ts";
import { scriptedModel } from "../helpers/scripted-model.ts";
import { baseExtensionUse, withBaseExtensions } from "./extension-harness.ts";
import type { ExtensionHarness } from "./extension-harness.ts";

const TOOLS: ToolCatalogItem[] = [
  { name: "slack__send", description: "Post a message to a Slack channel" },
  { name: "slack__read", description: "Read messages of a Slack channel" },
  { name: "telegram__send", description: "Send a text message to a Telegram chat" },
  { name: "file-system__write", description: "Write a file in the workspace" },
  { name: "bash__exec", description: "Run a shell command" },
];

function addTools(harness: ExtensionHarness): void {
  for (const item of TOOLS)
    harness.registerTool({ ...item, parameters: { type: "object", properties: {} } }, () => "ok");
}

const offered = (call: { tools?: { name: string }[] } | undefined) =>
  (call?.tools ?? []).map((tool) => tool.name).sort();

describe("tool-search", () => {
  it("ranks tools by the query's words, names first", () => {
    expect(searchTools(TOOLS, "send slack message", 2).map((item) => item.name)).toEqual([
      "slack__send",
      "slack__read",
    ]);
    expect(searchTools(TOOLS, "shell", 5).map((item) => item.name)).toEqual(["bash__exec"]);
    expect(searchTools(TOOLS, "nothing like it", 5)).toEqual([]);
  });

  it("offers the found tools from the next step on, and keeps the selection for the next turn", async () => {
    const stateRoot = tempStateRoot();
    const scripted = scriptedModel([
      { toolCalls: [{ name: "tool-search__search", args: { query: "slack message" } }] },
      { toolCalls: [{ name: "slack__send", args: {} }] },
      { text: "sent" },
      { text: "next turn" },
    ]);
    const harness = await withBaseExtensions({
      model: scripted.model,
      stateRoot,
      uses: [baseExtensionUse("tool-search")],
    });
    addTools(harness);
    const { result } = await runTurn({ env: harness.env, event: userEvent("tell #general hello") });
    expect(result).toMatchObject({ status: "ok", response: "sent" });
    expect(offered(scripted.calls[0])).toEqual([...TOOLS.map((item) => item.name), "tool-search__search"].sort());
    expect(offered(scripted.calls[1])).toEqual(["slack__read", "slack__send", "tool-search__search"]);
    const searchResult = harness.env.conversation.messages.find((message) => message.data.role === "tool");
    expect(JSON.stringify(searchResult?.data)).toContain('"selectedTools":["slack__send","slack__read"]');
    await runTurn({ env: harness.env, event: userEvent("again") });
    expect(offered(scripted.calls[3])).toEqual(["slack__read", "slack__send", "tool-search__search"]);
  });

  it("can start with only the search tool and the ones always included", async () => {
    const scripted = scriptedModel([
      { toolCalls: [{ name: "tool-search__search", args: { query: "shell command" } }] },
      { text: "ok" },
    ]);
    const harness = await withBaseExtensions({
      model: scripted.model,
      uses: [
        baseExtensionUse("tool-search", {
          exposeAllBeforeSearch: false,
          alwaysInclude: ["file-system__write"],
          persistSelection: false,
        }),
      ],
    });
    addTools(harness);
    await runTurn({ env: harness.env, event: userEvent("list files") });
    expect(offered(scripted.calls[0])).toEqual(["file-system__write", "tool-search__search"]);
    expect(offered(scripted.calls[1])).toEqual(["bash__exec", "file-system__write", "tool-search__search"]);
  });
});
