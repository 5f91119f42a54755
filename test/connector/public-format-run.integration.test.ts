/**
 * `goondan run` on a bundle written in the public Goondan format (test/fixtures/bundles/split-public):
 * resources split across goondan.yaml, models.yml and agents.yaml, a cli Connection routing `stdin_message`
 * and a webhook Connection routing `webhook_message` with `verify.webhook.signingSecret`. Real processes
 * throughout: the orchestrator, the cli and webhook connector children, the agent children, a loopback LLM.
 */
import { describe, expect, it } from "bun:test";
import { readStateRootToken } from "../../src/http/auth/state-root-token.ts";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signBody } from "../../src/base/connectors/webhook-signature.ts";
import { lastUserText, startLoopbackLlm, systemPrompt, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { GOONDAN_BIN, until } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const FIXTURE = new URL("../fixtures/bundles/split-public", import.meta.url).pathname;
const SECRET = "hooks-s3cret";
const defer = useCleanups();

/** Distinct free ports: each is held until all are picked, so the system cannot hand one out twice. */
function freePorts(count: number): number[] {
  const servers = Array.from({ length: count }, () =>
    Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") }),
  );
  const ports = servers.map((server) => server.port as number);
  for (const server of servers) server.stop(true);
  return ports;
}

/** A copy of the fixture with the loopback endpoint and the webhook port filled in. */
function writeBundle(options: { endpoint: string; port: number }): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-public-run-"));
  cpSync(FIXTURE, dir, { recursive: true });
  for (const [file, placeholder, value] of [
    ["models.yml", "__ENDPOINT__", options.endpoint],
    ["goondan.yaml", "__PORT__", String(options.port)],
  ] as const) {
    writeFileSync(join(dir, file), readFileSync(join(dir, file), "utf8").replaceAll(placeholder, value));
  }
  return dir;
}

const role = (request: LoopbackRequest) => /ROLE=(\w+)/.exec(systemPrompt(request))?.[1] ?? "unknown";

describe("goondan run on a split bundle with the public event names", () => {
  it("answers a stdin line through the cli Connection and routes a signed webhook_message to its agent and instance", async () => {
    const llm = await startLoopbackLlm({
      respond: (request) => ({ text: `${role(request)} heard: ${lastUserText(request)}` }),
    });
    const [hookPort, apiPort] = freePorts(2) as [number, number];
    const dir = writeBundle({ endpoint: llm.url, port: hookPort });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-public-run-state-"));
    const input = join(stateRoot, "input.txt");
    await Bun.write(input, "hello lead\n");
    const proc = Bun.spawn(
      [process.execPath, GOONDAN_BIN, "run", dir, "--port", String(apiPort), "--state-root", join(stateRoot, "state")],
      {
        env: { ...process.env, LOOPBACK_API_KEY: "test-key", HOOKS_SIGNING_SECRET: SECRET, GOONDAN_LOG_LEVEL: "warn" },
        stdin: Bun.file(input),
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    defer(async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });

    let stdout = "";
    const reader = proc.stdout.getReader();
    const deadline = Date.now() + 20_000;
    while (!stdout.includes("\n") && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      stdout += new TextDecoder().decode(value);
    }
    expect(stdout).toBe("lead heard: hello lead\n");

    const hook = `http://127.0.0.1:${hookPort}/hooks`;
    const body = JSON.stringify({ text: "disk full on db-2", properties: { route: "ops", ticket: "9" } });
    const unsigned = await until(() => fetch(hook, { method: "POST", body }).catch(() => undefined), {
      timeoutMs: 15_000,
    }).catch(async (error) => {
      proc.kill("SIGTERM");
      throw new Error(`${String(error)}; stderr: ${await new Response(proc.stderr).text()}`);
    });
    expect(unsigned.status).toBe(401);
    const signed = await fetch(hook, {
      method: "POST",
      body,
      headers: { "x-goondan-signature": signBody({ body, secret: SECRET }) },
    });
    expect(signed.status).toBe(202);

    const opsRequest = await until(() => llm.requests.find((request) => role(request) === "ops"), {
      timeoutMs: 15_000,
    });
    expect(lastUserText(opsRequest)).toBe("disk full on db-2");
    const instances = await until(async () => {
      // The API needs the token goondan run made in its state root (no credential is configured here).
      const token = readStateRootToken(join(stateRoot, "state"));
      const listed = (await (
        await fetch(`http://127.0.0.1:${apiPort}/v1/instances`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as {
        instances: { agent: string; instanceKey: string }[];
      };
      return listed.instances.some((instance) => instance.agent === "ops") ? listed.instances : undefined;
    });
    expect(instances.filter((instance) => instance.agent === "ops").map((instance) => instance.instanceKey)).toEqual([
      "ticket-9",
    ]);
    expect(instances.filter((instance) => instance.agent === "lead").map((instance) => instance.instanceKey)).toEqual([
      "terminal",
    ]);

    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }, 40_000);
});
