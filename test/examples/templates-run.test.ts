import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initBundle } from "../../src/cli/commands/init.ts";
import { startLoopbackLlm, toolResults, type LoopbackRule } from "../helpers/loopback-llm.ts";
import { liveBundleYaml, REPO } from "./record-example.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";
import { runToExit } from "../helpers/goondan-process.ts";

realProcessTimeouts();

const work = mkdtempSync(join(tmpdir(), "goondan-templates-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Writes the template, points its Model at the loopback LLM, runs `goondan run --input` and returns stdout. */
async function runTemplate(options: { template: "default" | "multi-agent"; rules: LoopbackRule[]; input: string }) {
  const llm = await startLoopbackLlm({ rules: options.rules });
  try {
    const dir = join(work, options.template);
    initBundle({ dir, template: options.template });
    const file = join(dir, "goondan.yaml");
    writeFileSync(file, liveBundleYaml({ yaml: readFileSync(file, "utf8"), endpoint: llm.url }));
    const { code, stdout, stderr } = await runToExit({
      argv: [
        process.execPath,
        join(REPO, "bin", "goondan"),
        "run",
        dir,
        "--input",
        options.input,
        "--state-root",
        join(work, `${options.template}-state`),
      ],
      env: { PATH: process.env.PATH, HOME: work, GOONDAN_LOG_LEVEL: "warn" },
    });
    return { code, stdout, stderr, requests: llm.requests, unexpected: llm.unexpected.length };
  } finally {
    await llm.close();
  }
}

describe("bundles written by goondan init", () => {
  it("default: the assistant calls the bundle's own clock tool and answers", async () => {
    const result = await runTemplate({
      template: "default",
      input: "What time is it in Paris?",
      rules: [
        {
          match: { lastRole: "user" },
          reply: { toolCalls: [{ name: "clock__now", args: { timeZone: "Europe/Paris" } }] },
          times: 1,
        },
        { match: { lastRole: "tool" }, reply: { text: "It is tea time in Paris." }, times: 1 },
      ],
    });
    expect({ code: result.code, stdout: result.stdout, unexpected: result.unexpected }).toEqual({
      code: 0,
      stdout: "It is tea time in Paris.\n",
      unexpected: 0,
    });
    const clock = toolResults(result.requests[1]!)[0]?.content as {
      status: string;
      output: { utc: string; timeZone: string };
    };
    expect(clock.status).toBe("ok");
    expect(clock.output.timeZone).toBe("Europe/Paris");
    expect(Number.isNaN(Date.parse(clock.output.utc))).toBe(false);
  }, 60_000);

  it("multi-agent: the coordinator delegates to the worker, which runs bash in its own process", async () => {
    const result = await runTemplate({
      template: "multi-agent",
      input: "Say hello from the shell",
      rules: [
        {
          match: { system: "coordinator", lastRole: "user" },
          reply: { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "run echo hello" } }] },
          times: 1,
        },
        {
          match: { system: "worker", lastRole: "user" },
          reply: { toolCalls: [{ name: "bash__exec", args: { command: "echo hello" } }] },
          times: 1,
        },
        { match: { system: "worker", lastRole: "tool" }, reply: { text: "The shell said hello." }, times: 1 },
        {
          match: { system: "coordinator", lastRole: "tool" },
          reply: { text: "The worker reports: the shell said hello." },
          times: 1,
        },
      ],
    });
    expect({ code: result.code, stdout: result.stdout, unexpected: result.unexpected }).toEqual({
      code: 0,
      stdout: "The worker reports: the shell said hello.\n",
      unexpected: 0,
    });
    const bash = result.requests
      .flatMap((request) => toolResults(request))
      .find((entry) => JSON.stringify(entry.content).includes("hello\\n"));
    expect(bash).toBeDefined();
  }, 60_000);
});
