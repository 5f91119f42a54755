/**
 * An instance's workdir with real processes (`goondan run`, a Bun agent process, the loopback LLM): made when a tool
 * first reads it, so a conversation that only talks leaves no directory behind, and one that writes a file finds
 * it in its own workdir.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { realProcessTimeouts, useCleanups } from "../helpers/cleanups.ts";
import { lastUserText, startLoopbackLlm, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { loopbackBundle, runLoopbackBundle } from "./loopback-bundle.ts";

const defer = useCleanups();
realProcessTimeouts();

const documents = `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: filer }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "ROLE=filer" }
  tools: [{ kind: Tool, name: file-system, package: "@goondan/base" }]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: lazy }
spec:
  entryAgent: Agent/filer
  agents: [Agent/filer]
`;

function respond(request: LoopbackRequest) {
  if (request.body.messages.at(-1)?.role === "tool") return { text: "written" };
  const text = lastUserText(request);
  if (text.startsWith("write"))
    return { toolCalls: [{ name: "file-system__write", args: { path: "note.txt", content: text } }] };
  return { text: `you said ${text}` };
}

describe("an instance's workdir", () => {
  it("is made when a tool first asks for it, never for a conversation that only talks", async () => {
    const llm = await startLoopbackLlm({ respond });
    defer(() => llm.close());
    const dir = loopbackBundle({ defer, llmUrl: llm.url, documents });
    const run = await runLoopbackBundle({ defer, dir });
    const ask = async (instanceKey: string, input: string) => {
      const response = await fetch(`${run.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input, instanceKey, wait: true }),
      });
      return (await response.json()) as { status: string; response: string };
    };
    expect(await ask("talk", "hello")).toMatchObject({ status: "ok", response: "you said hello" });
    expect(await ask("files", "write this down")).toMatchObject({ status: "ok", response: "written" });
    const instances = join(dir, "state", "workspaces", "lazy", "instances", "filer");
    expect(existsSync(join(instances, "talk", "workdir"))).toBe(false);
    expect(readFileSync(join(instances, "files", "workdir", "note.txt"), "utf8")).toBe("write this down");
  });
});
