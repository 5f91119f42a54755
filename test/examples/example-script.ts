/**
 * The conversation of the bundled example (goondan.yaml at the repository root), as the loopback LLM plays
 * it when the cassette is recorded: the coordinator delegates with agents__request, the worker writes
 * poem.txt with file-system__write, counts its words with bash__exec (`wc -w`) and reports. The input is
 * the one the README's first command sends.
 */
import type { LoopbackRule } from "../helpers/loopback-llm.ts";

export const EXAMPLE_INPUT = "Write a three-line poem about process isolation to poem.txt and count its words";

export const POEM = [
  "Each agent lives in its own process,",
  "one crash, one restart, no shared debris;",
  "the swarm keeps humming, calm and free.",
].join("\n");

export const POEM_WORDS = POEM.split(/\s+/).length;

export const WORKER_TASK =
  "Write a three-line poem about process isolation to poem.txt in your workspace, then count its words with `wc -w poem.txt` and report the poem and the count.";

export const WORKER_REPLY = `I wrote poem.txt:\n\n${POEM}\n\n\`wc -w poem.txt\` reports ${POEM_WORDS} words.`;

export const COORDINATOR_REPLY = `Done. The worker wrote poem.txt in its workspace:\n\n${POEM}\n\nIt has ${POEM_WORDS} words (counted with \`wc -w\`).`;

const COORDINATOR = "You are the coordinator";
const WORKER = "You are a worker";

/** First match wins; `times` makes the worker's two tool-result steps answer in order. */
export const EXAMPLE_RULES: LoopbackRule[] = [
  {
    match: { system: COORDINATOR, lastRole: "user" },
    reply: {
      toolCalls: [{ name: "agents__request", args: { target: "worker", input: WORKER_TASK } }],
      usage: { promptTokens: 412, completionTokens: 58 },
    },
    times: 1,
  },
  {
    match: { system: COORDINATOR, lastRole: "tool" },
    reply: { text: COORDINATOR_REPLY, usage: { promptTokens: 566, completionTokens: 61 } },
    times: 1,
  },
  {
    match: { system: WORKER, lastRole: "user" },
    reply: {
      toolCalls: [{ name: "file-system__write", args: { path: "poem.txt", content: `${POEM}\n` } }],
      usage: { promptTokens: 498, completionTokens: 49 },
    },
    times: 1,
  },
  {
    match: { system: WORKER, lastRole: "tool" },
    reply: {
      toolCalls: [{ name: "bash__exec", args: { command: "wc -w poem.txt" } }],
      usage: { promptTokens: 561, completionTokens: 22 },
    },
    times: 1,
  },
  {
    match: { system: WORKER, lastRole: "tool" },
    reply: { text: WORKER_REPLY, usage: { promptTokens: 610, completionTokens: 47 } },
    times: 1,
  },
];
