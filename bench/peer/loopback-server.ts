/**
 * The model server every side of bench/peer-compare.ts talks to, in a process of its own: the loopback
 * OpenAI-compatible server (test/helpers/loopback-llm.ts) scripted for the peer workload. An entry agent
 * (system prompt `ROLE=entry`) hands the user's text to a worker, through whichever delegation tool it was offered
 * (goondan's `agents__request`, with the conversation's own worker instance, or a peer's tool whose name holds
 * `worker`: an agent as a tool, a Mastra subagent, a LangGraph tool calling the worker graph), then answers; the
 * worker (`ROLE=worker`) calls its echo tool once, then answers. Four model calls per request.
 * A request's text is `<conversation> request <i>`; goondan's worker instance is `worker-<conversation>`, so a new
 * conversation is a new entry instance and a new worker instance.
 * Prints `{"port","url"}` as one JSON line and serves until SIGTERM. `PEER_LOOPBACK_LOG=1` logs every call on stderr;
 * `PEER_TIMELINE=1` logs each call's arrival as `T <epoch ms> <e|w> <messages>`, to time the gaps between a
 * request's calls.
 */
import {
  lastUserText,
  startLoopbackLlm,
  systemPrompt,
  toolNames,
  type LoopbackReply,
  type LoopbackRequest,
} from "../../test/helpers/loopback-llm.ts";

/** The delegation tool's text argument: the first required string property of its schema (`input`, `prompt`, ...). */
function textArgument(request: LoopbackRequest, tool: string): string {
  const offered = (request.body.tools ?? []).find((entry) => entry.function.name === tool);
  const schema = offered?.function.parameters as
    | { required?: string[]; properties?: Record<string, { type?: string }> }
    | undefined;
  const names = schema?.required ?? Object.keys(schema?.properties ?? {});
  return names.find((name) => schema?.properties?.[name]?.type === "string") ?? "input";
}

/** `PEER_LOOPBACK_LOG=1`: each model call's role, offered tools and message count on stderr, to check a peer. */
const log = process.env.PEER_LOOPBACK_LOG === "1";

function reply(request: LoopbackRequest): LoopbackReply {
  const answer = scripted(request);
  if (process.env.PEER_TIMELINE === "1") {
    const at = (performance.timeOrigin + performance.now()).toFixed(3);
    const role = systemPrompt(request).includes("ROLE=worker") ? "w" : "e";
    console.error(`T ${at} ${role} ${request.body.messages.length}`);
  }
  if (log)
    console.error(
      JSON.stringify({
        system: systemPrompt(request).slice(0, 40),
        tools: toolNames(request),
        messages: request.body.messages.length,
        last: request.body.messages.at(-1)?.role,
        answer,
      }),
    );
  return answer;
}

function scripted(request: LoopbackRequest): LoopbackReply {
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
    const conversation = /^(\S+) request/.exec(text)?.[1] ?? "lane-0";
    return {
      toolCalls: [
        { name: "agents__request", args: { target: "worker", input: text, instanceKey: `worker-${conversation}` } },
      ],
    };
  }
  const delegate = tools.find((name) => name.includes("worker")) ?? "worker";
  return { toolCalls: [{ name: delegate, args: { [textArgument(request, delegate)]: text } }] };
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
