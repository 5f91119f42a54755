/**
 * The `@mastra/core` side of bench/peer-compare.ts, delegation as its docs show it (subagents): an entry Agent with
 * `agents: { worker }`, the worker with one echo tool (`createTool`), both on the loopback server through Mastra's
 * OpenAI-compatible model config (`{ id, url, apiKey }`). The entry keeps its conversation in `Memory` on an
 * `InMemoryStore`, one thread per conversation (Mastra's default recall: the last 10 messages); Mastra gives each
 * delegation a fresh worker thread.
 * Usage: bun bench/peer/mastra-run.ts --url URL --sequential N --lanes L --requests M --conv short|long
 * Prints one JSON line (bench/peer/peer-harness.ts).
 */
import { Agent } from "@mastra/core/agent";
import { InMemoryStore } from "@mastra/core/storage";
import { createTool } from "@mastra/core/tools";
import { Memory } from "@mastra/memory";
import { z } from "zod";
import { flag } from "../support/flag.ts";
import { runPeer, type Conversation } from "./peer-harness.ts";

// Mastra's usage telemetry is sent only through a `Mastra` instance, which this script does not build; off anyway.
process.env.MASTRA_TELEMETRY_DISABLED ??= "1";

const model = { id: "loopback/loopback-model", url: flag("url", ""), apiKey: "loopback" } as const;

const echo = createTool({
  id: "echo",
  description: "Echo the text back.",
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ text }),
});
const worker = new Agent({
  id: "worker",
  name: "worker",
  description: "Hands the request to the worker.",
  instructions: "ROLE=worker",
  model,
  tools: { echo },
});
const entry = new Agent({
  id: "entry",
  name: "entry",
  instructions: "ROLE=entry",
  model,
  agents: { worker },
  memory: new Memory({ storage: new InMemoryStore() }),
});

/** One conversation: a memory thread of its own. */
function conversation(name: string): Conversation {
  return async (text) => {
    const result = await entry.generate(text, { memory: { resource: name, thread: name }, maxSteps: 5 });
    return result.text;
  };
}

await runPeer(conversation);
