/**
 * The scripted model of the real-process delegation tests (test/chaos, test/cluster), for the loopback LLM: a
 * coordinator (system prompt `ROLE=coordinator`) hands each job (`job-N`) to worker `w-(N % workers)` through
 * `agents__request` and reports the worker's answer; the worker appends the job to the effects file once through
 * `effects__append`, and, as a careful model does, told its call was interrupted it checks the file before calling
 * again. A job named `cycle` makes the worker request the coordinator back (a cycle the call chain refuses).
 */
import { existsSync, readFileSync } from "node:fs";
import { systemPrompt, type LoopbackReply, type LoopbackRequest } from "./loopback-llm.ts";

type ChatMessage = LoopbackRequest["body"]["messages"][number];
const text = (message: ChatMessage | undefined): string =>
  typeof message?.content === "string" ? message.content : JSON.stringify(message?.content ?? "");
const lastUser = (messages: ChatMessage[]): string =>
  text([...messages].reverse().find((message) => message.role === "user"));

export function delegationModel(options: {
  effectsFile: string;
  workers: number;
}): (request: LoopbackRequest) => LoopbackReply {
  const { effectsFile } = options;
  const done = (job: string) => existsSync(effectsFile) && readFileSync(effectsFile, "utf8").split("\n").includes(job);
  return (request) => {
    const messages = request.body.messages;
    const last = messages.at(-1);
    const job = lastUser(messages);
    if (systemPrompt(request).includes("ROLE=coordinator")) {
      if (last?.role === "user")
        return {
          toolCalls: [
            {
              name: "agents__request",
              args: {
                target: "worker",
                input: job,
                instanceKey: job === "cycle" ? "w-cycle" : `w-${Number(job.slice(4)) % options.workers}`,
              },
            },
          ],
        };
      const result = JSON.parse(text(last)) as {
        status: string;
        output?: { response?: string };
        error?: { code: string };
      };
      return {
        text:
          result.status === "ok" ? `done ${job}: ${result.output?.response}` : `failed ${job}: ${result.error?.code}`,
      };
    }
    if (job === "cycle") {
      if (last?.role === "user")
        return { toolCalls: [{ name: "agents__request", args: { target: "coordinator", input: "back" } }] };
      return {
        text: `worker got ${text(last).includes("E_CIRCULAR_CALL_DETECTED") ? "E_CIRCULAR_CALL_DETECTED" : text(last)}`,
      };
    }
    if (last?.role === "user") return { toolCalls: [{ name: "effects__append", args: { id: job } }] };
    const interrupted = text(last).includes("E_TOOL_INTERRUPTED");
    if (interrupted && !done(job)) return { toolCalls: [{ name: "effects__append", args: { id: job } }] };
    return { text: `did ${job}` };
  };
}
