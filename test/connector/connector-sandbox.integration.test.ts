/**
 * A connector child as an attacker, through a real `goondan run` (as root on CI's container): a Connector without
 * `network` (none) cannot reach the daemon's port, and one with `network: host` can; neither finds the model key or
 * the API token in any environment it can read, nor reads goondan.db or the API token file, and both run without
 * capabilities (test/fixtures/connectors/spy-connector.ts reports, as an event the model reads).
 */
import { describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanups } from "../helpers/cleanups.ts";
import { startGoondanRun, until } from "../helpers/goondan-process.ts";
import { lastUserText, startLoopbackLlm } from "../helpers/loopback-llm.ts";

const defer = useCleanups();
const SPY = new URL("../fixtures/connectors/spy-connector.ts", import.meta.url).pathname;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Report {
  capEff: string;
  scan: { read: number; found: string[] };
  database: string;
  tokenFile: string;
  daemon: string;
}

describe.skipIf(process.platform !== "linux")("a connector child under goondan run, as an attacker", () => {
  it("reads no secret, and reaches the daemon only when its Connector says network: host", async () => {
    const apiKey = `sk-spy-${randomBytes(12).toString("hex")}`;
    const apiToken = `tok-spy-${randomBytes(12).toString("hex")}`;
    const fileToken = `file-spy-${randomBytes(12).toString("hex")}`;
    const llm = await startLoopbackLlm({ respond: () => ({ text: "noted" }) });
    defer(() => llm.close());
    const dir = mkdtempSync(join(tmpdir(), "goondan-connector-sandbox-"));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const stateRoot = join(dir, "state");
    mkdirSync(stateRoot);
    writeFileSync(join(stateRoot, "api-token"), fileToken, { mode: 0o600 });
    writeFileSync(join(dir, "spy.ts"), `export { default } from ${JSON.stringify(SPY)};\n`);
    const port = await freePort();
    const config = `{ port: ${port}, stateRoot: ${JSON.stringify(stateRoot)}, needles: "${apiKey},${apiToken},${fileToken}" }`;
    const connector = (name: string, network: string) =>
      `---\napiVersion: goondan.ai/v1\nkind: Connector\nmetadata: { name: ${name} }\nspec: { entry: ./spy.ts,${network} events: [{ name: spy_report }] }\n` +
      `---\napiVersion: goondan.ai/v1\nkind: Connection\nmetadata: { name: ${name} }\nspec: { connectorRef: Connector/${name}, config: ${config}, ingress: { rules: [{ match: { event: spy_report }, route: {} }] } }\n`;
    writeFileSync(
      join(dir, "goondan.yaml"),
      `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: m }
spec: { provider: openai-compatible, model: loopback, endpoint: ${JSON.stringify(llm.url)}, apiKey: { valueFrom: { env: SPY_API_KEY } } }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: listener }
spec: { modelConfig: { modelRef: Model/m }, prompt: { system: listen } }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: spied }
spec: { entryAgent: Agent/listener, agents: [Agent/listener] }
${connector("closed", "")}${connector("open", " network: host,")}`,
    );
    await startGoondanRun({
      args: [dir, "--port", String(port), "--state-root", stateRoot],
      env: { SPY_API_KEY: apiKey, GOONDAN_API_TOKEN: apiToken, GOONDAN_LOG_LEVEL: "info" },
      readyTimeoutMs: 30_000,
      stderr: "pipe",
      onSpawn: (proc) =>
        defer(() => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
        }),
    });
    const reports = await until(
      () => {
        const texts = llm.requests.map((request) => lastUserText(request)).filter((text) => text.includes('"daemon"'));
        return texts.length >= 2 ? texts.map((text) => JSON.parse(text.slice(text.indexOf("{"))) as Report) : undefined;
      },
      { timeoutMs: 30_000 },
    );
    const closed = reports.find((report) => report.daemon.startsWith("refused"));
    const open = reports.find((report) => report.daemon.startsWith("answered"));
    expect(closed).toBeDefined();
    expect(open?.daemon).toBe("answered 200");
    for (const report of reports) {
      expect(report.scan.found).toEqual([]);
      expect(report.database).toStartWith("refused");
      expect(report.tokenFile).toStartWith("refused");
      expect(report.capEff).toBe("0000000000000000");
    }
  }, 90_000);
});
