/**
 * Idempotent tools with real processes (`goondan run`, a Bun agent process, the loopback LLM): a step whose calls
 * are all idempotent (the built-in `file-system__read`) is recorded before they run without an fsync of its own,
 * while a step with a call that acts (`file-system__write`) waits for one. Counted by `/metrics`'
 * `goondan_store_syncs_total` around turns sent one at a time: the accept and the turn's end are synced either way,
 * so a read turn costs one fsync fewer than a write turn.
 */
import { describe, expect, it } from "bun:test";
import { realProcessTimeouts, useCleanups } from "../helpers/cleanups.ts";
import { lastUserText, messageText, startLoopbackLlm, type LoopbackRequest } from "../helpers/loopback-llm.ts";
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
metadata: { name: filer }
spec:
  entryAgent: Agent/filer
  agents: [Agent/filer]
`;

/** `write` and `read` in the user's text become the file-system calls; a tool's result becomes the reply. */
function respond(request: LoopbackRequest) {
  const last = request.body.messages.at(-1);
  if (last?.role === "tool") return { text: `tool said: ${messageText(last).slice(0, 80)}` };
  const text = lastUserText(request);
  if (text.startsWith("write"))
    return { toolCalls: [{ name: "file-system__write", args: { path: "note.txt", content: text } }] };
  return { toolCalls: [{ name: "file-system__read", args: { path: "note.txt" } }] };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

describe("idempotent tool calls", () => {
  it("are recorded before they run without an fsync of their own; a call that acts waits for one", async () => {
    const llm = await startLoopbackLlm({ respond });
    defer(() => llm.close());
    const dir = loopbackBundle({ defer, llmUrl: llm.url, documents });
    const run = await runLoopbackBundle({ defer, dir });
    const syncs = async (): Promise<number> => {
      const text = await (await fetch(`${run.base}/metrics`)).text();
      const line = text.split("\n").find((entry) => entry.startsWith("goondan_store_syncs_total "));
      if (line === undefined) throw new Error(`no goondan_store_syncs_total in /metrics:\n${text.slice(0, 400)}`);
      return Number(line.split(" ")[1]);
    };
    /** The fsyncs one turn cost, sent alone and waited for. */
    const turn = async (input: string): Promise<number> => {
      const before = await syncs();
      const response = await fetch(`${run.base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input, instanceKey: "k", wait: true }),
      });
      const reply = (await response.json()) as { status: string; response: string };
      expect(reply.status).toBe("ok");
      expect(reply.response).toStartWith("tool said:");
      return (await syncs()) - before;
    };
    await turn("write warm-up"); // starts the agent process and its instance
    const writes: number[] = [];
    const reads: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      writes.push(await turn(`write round ${round}`));
      reads.push(await turn("read it back"));
    }
    // The read really read what the write wrote (the instance's workspace).
    const last = llm.requests.filter((request) => request.body.messages.at(-1)?.role === "tool").at(-1);
    expect(messageText(last?.body.messages.at(-1))).toContain("write round 4");
    expect(median(writes) - median(reads)).toBe(1);
    for (let round = 0; round < 5; round += 1) expect(reads[round]).toBeLessThan(writes[round] ?? 0);
  });
});
