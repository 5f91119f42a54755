/**
 * A real `goondan run --input` whose Model names no endpoint and no apiKey: the provider's standard variables
 * (ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY, OPENAI_BASE_URL / OPENAI_API_KEY) reach the agent's Bun child, which
 * calls the loopback server they name, also when they come from the bundle's `.env` and goondan runs from another
 * directory; and they stay out of the commands a tool runs.
 */
import { describe, expect, it } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanups } from "../helpers/cleanups.ts";
import { runOnce } from "../helpers/run-once.ts";
import { startLoopbackAnthropic } from "../helpers/loopback-anthropic.ts";
import { startLoopbackLlm, toolResults } from "../helpers/loopback-llm.ts";

const defer = useCleanups();
const TUTORIAL_01 = new URL("../fixtures/bundles/tutorial-01-hello", import.meta.url).pathname;

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("provider variables in a real run", () => {
  it("reaches an Anthropic loopback through ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY", async () => {
    const server = await startLoopbackAnthropic({ reply: "Hello from the loopback." });
    defer(() => server.close());
    const result = await runOnce({
      dir: TUTORIAL_01,
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test" },
      cwd: tmpdir(),
    });
    expect(result.stderr).not.toContain("error");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello from the loopback.\n");
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ path: "/v1/messages", apiKey: "sk-ant-test" });
    expect(server.requests[0]?.body.system).toEqual([
      expect.objectContaining({ text: expect.stringContaining("You greet whoever writes to you") }),
    ]);
  }, 30_000);

  it("reaches an OpenAI-compatible loopback through OPENAI_BASE_URL, and a tool's command never sees the key", async () => {
    const llm = await startLoopbackLlm({
      respond: (request) =>
        request.body.messages.at(-1)?.role === "tool"
          ? { text: `env said ${JSON.stringify(toolResults(request).at(-1)?.content)}` }
          : { toolCalls: [{ name: "bash__exec", args: { command: 'echo "key=[${OPENAI_API_KEY:-}]"' } }] },
    });
    defer(() => llm.close());
    const dir = tempDir("goondan-provider-env-bundle-");
    cpSync(TUTORIAL_01, dir, { recursive: true });
    const file = join(dir, "goondan.yaml");
    writeFileSync(
      file,
      readFileSync(file, "utf8")
        .replace(
          "provider: anthropic\n  model: claude-sonnet-4-5",
          "provider: openai\n  model: gpt-x\n  options: { api: chat }",
        )
        .replace(
          "    system: You greet",
          '    system: You greet\n  tools:\n    - ref: { kind: Tool, name: bash, package: "@goondan/base" }\n#',
        ),
    );
    const result = await runOnce({ dir, env: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "sk-openai-secret" } });
    expect(result.code).toBe(0);
    expect(llm.requests[0]?.headers.authorization).toBe("Bearer sk-openai-secret");
    expect(result.stdout).toContain("key=[]");
    expect(result.stdout).not.toContain("sk-openai-secret");
  }, 30_000);

  it("finds the variables in the bundle's .env when run from another directory", async () => {
    const server = await startLoopbackAnthropic({ reply: "Hello from the bundle's .env." });
    defer(() => server.close());
    const dir = tempDir("goondan-provider-env-dotenv-");
    cpSync(TUTORIAL_01, dir, { recursive: true });
    writeFileSync(join(dir, ".env"), `ANTHROPIC_BASE_URL=${server.url}\nANTHROPIC_API_KEY=sk-from-dotenv\n`);
    const elsewhere = tempDir("goondan-provider-env-cwd-");
    const result = await runOnce({ dir, env: {}, cwd: elsewhere });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello from the bundle's .env.\n");
    expect(server.requests[0]?.apiKey).toBe("sk-from-dotenv");
  }, 30_000);
});
