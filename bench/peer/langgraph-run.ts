/**
 * The LangGraph JS side of bench/peer-compare.ts, delegation as its docs show it (a subagent called from a tool):
 * two prebuilt ReAct agents (`createReactAgent` from `@langchain/langgraph/prebuilt`), the entry with one tool that
 * invokes the worker graph, the worker with one echo tool; both on the loopback server through `ChatOpenAI` with
 * `configuration.baseURL`. The entry keeps its conversation in a `MemorySaver` checkpointer, one thread per
 * conversation; the worker, invoked from the tool, starts afresh on each call.
 * (`createReactAgent` is marked deprecated in favour of `langchain`'s `createAgent`; it is still LangGraph's
 * prebuilt and what its multi-agent pages use.)
 * Usage: bun bench/peer/langgraph-run.ts --url URL --sequential N --lanes L --requests M --conv short|long
 * Prints one JSON line (bench/peer/peer-harness.ts).
 */
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { flag } from "../support/flag.ts";
import { runPeer, type Conversation } from "./peer-harness.ts";

const llm = new ChatOpenAI({
  model: "loopback-model",
  apiKey: "loopback",
  configuration: { baseURL: flag("url", "") },
});

const echo = tool(async ({ text }: { text: string }) => JSON.stringify({ text }), {
  name: "echo",
  description: "Echo the text back.",
  schema: z.object({ text: z.string() }),
});
const worker = createReactAgent({ llm, tools: [echo], prompt: "ROLE=worker", name: "worker" });

const lastText = (messages: { content: unknown }[]): string => {
  const content = messages[messages.length - 1]?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
};

const callWorker = tool(
  async ({ input }: { input: string }) => {
    const result = await worker.invoke({ messages: [{ role: "user", content: input }] });
    return lastText(result.messages);
  },
  { name: "worker", description: "Hand the request to the worker.", schema: z.object({ input: z.string() }) },
);
const entry = createReactAgent({
  llm,
  tools: [callWorker],
  prompt: "ROLE=entry",
  name: "entry",
  checkpointer: new MemorySaver(),
});

/** One conversation: a checkpointer thread of its own. */
function conversation(name: string): Conversation {
  return async (text) => {
    const result = await entry.invoke(
      { messages: [{ role: "user", content: text }] },
      { configurable: { thread_id: name } },
    );
    return lastText(result.messages);
  };
}

await runPeer(conversation);
