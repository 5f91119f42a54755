/**
 * The model server both sides of bench/peer-compare.ts talk to, in a process of its own: the loopback
 * OpenAI-compatible server (test/helpers/loopback-llm.ts) scripted for the peer workload. An entry agent
 * (system prompt `ROLE=entry`) hands the user's text to a worker, through whichever delegation tool it was offered
 * (goondan's `agents__request`, with the lane's own worker instance, or the peer's agent-as-tool `worker`), then
 * answers; the worker (`ROLE=worker`) calls its echo tool once, then answers. Four model calls per request.
 * Prints `{"port","url"}` as one JSON line and serves until SIGTERM.
 */
import {
  lastUserText,
  startLoopbackLlm,
  systemPrompt,
  toolNames,
  type LoopbackReply,
  type LoopbackRequest,
} from "../../test/helpers/loopback-llm.ts";

function reply(request: LoopbackRequest): LoopbackReply {
  const messages = request.body.messages;
  const lastRole = messages[messages.length - 1]?.role;
  const text = lastUserText(request);
  const tools = toolNames(request);
  if (systemPrompt(request).includes("ROLE=worker")) {
    if (lastRole === "tool") return { text: `worked on ${text}` };
    const echo = tools.find((name) => name.includes("echo")) ?? "echo";
    return { toolCalls: [{ name: echo, args: { text } }] };
  }
  if (lastRole === "tool") return { text: `done: ${text}` };
  if (tools.includes("agents__request")) {
    const lane = /lane-(\d+)/.exec(text)?.[1] ?? "0";
    return {
      toolCalls: [{ name: "agents__request", args: { target: "worker", input: text, instanceKey: `worker-${lane}` } }],
    };
  }
  return { toolCalls: [{ name: "worker", args: { input: text } }] };
}

const llm = await startLoopbackLlm({ respond: reply });
// The recorded requests would grow with every call of a long run: keep none.
setInterval(() => {
  llm.requests.length = 0;
}, 1_000).unref();
console.log(JSON.stringify({ port: llm.port, url: llm.url }));
const stop = async (): Promise<void> => {
  await llm.close();
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
