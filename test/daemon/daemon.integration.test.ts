/**
 * The Daemon with real processes: connectors started next to the agents, listed with them in the one process
 * table the HTTP API serves, and re-planned by a watched change to their Connection.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bunProcessSpawner } from "../../src/supervision/process-spawner.ts";
import { validateBundleOnDisk } from "../../src/config/validate-on-disk.ts";
import { Daemon } from "../../src/daemon/daemon.ts";
import { CONNECTOR_ENTRY_SCRIPT } from "../../src/protocol/child-entry.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { startLoopbackLlm, systemPrompt, lastUserText } from "../helpers/loopback-llm.ts";
import { liveEnv, liveModel, writeLiveBundle } from "../fixtures/reload/live-swarm.ts";
import { until as pollUntil } from "../helpers/goondan-process.ts";
import { useCleanups } from "../helpers/cleanups.ts";

const defer = useCleanups();

const until = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000) =>
  pollUntil(probe, { timeoutMs, intervalMs: 25 });

function freePort(): number {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = server.port as number;
  server.stop(true);
  return port;
}

async function post(port: number, body: unknown): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetch(`http://127.0.0.1:${port}/in`, { method: "POST", body: JSON.stringify(body) });
    } catch (error) {
      if (attempt > 200) throw error;
      await Bun.sleep(25);
    }
  }
}

describe("Daemon", () => {
  it("runs the Swarm's connectors, lists them with the agents, and restarts one whose Connection changed under --watch", async () => {
    const llm = await startLoopbackLlm({ respond: liveModel });
    const port = freePort();
    const connection = (agent: string) => `---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: inbound }
spec:
  connectorRef: Connector/webhook
  config: { port: "${port}", path: /in }
  ingress:
    rules:
      - route: { agentRef: Agent/${agent} }
`;
    const dir = writeLiveBundle({ endpoint: llm.url, extraYaml: connection("other") });
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-liveops-"));
    const env = { ...process.env, ...liveEnv } as Record<string, string | undefined>;
    const load = () => validateBundleOnDisk({ target: dir, env });
    const first = await load();
    if (!first.bundle) throw new Error(`fixture invalid: ${JSON.stringify(first.errors)}`);
    const daemon = await Daemon.start({
      bundle: first.bundle,
      swarm: "live",
      stateRoot,
      env,
      logger: silentLogger(),
      spawner: bunProcessSpawner({ output: "ignore", env }),
      connectorSpawner: bunProcessSpawner({ entryScript: CONNECTOR_ENTRY_SCRIPT, output: "ignore", env }),
      http: { host: "127.0.0.1", port: 0 },
      watch: true,
      reloadSignal: false,
      coalesceMs: 50,
    });
    defer(async () => {
      await daemon.stop("test over");
      await llm.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateRoot, { recursive: true, force: true });
    });
    const api = daemon.backend;
    const served = async () =>
      (
        (await (await fetch(`http://127.0.0.1:${daemon.address?.port}/v1/processes`)).json()) as {
          processes: unknown[];
        }
      ).processes;

    expect((await post(port, { text: "first" })).status).toBe(202);
    await until(() =>
      llm.requests.find(
        (request) => systemPrompt(request).includes("ROLE=other") && lastUserText(request).includes("first"),
      ),
    );
    const connectorRow = await until(() => api.processes().find((row) => row.kind === "connector" && row.pid !== null));
    expect(connectorRow).toMatchObject({ agent: "connector:inbound", instanceKey: "webhook", status: "running" });
    expect(api.processes().some((row) => row.kind === "agent" && row.agent === "other")).toBe(true);
    expect(await served()).toContainEqual(
      expect.objectContaining({
        kind: "connector",
        agent: "connector:inbound",
        connection: "inbound",
        connector: "webhook",
      }),
    );
    expect(api.orchestrator.swarm.name).toBe("live");

    const yaml = join(dir, "goondan.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace("agentRef: Agent/other", "agentRef: Agent/front"));
    await until(() => {
      const row = api.processes().find((candidate) => candidate.kind === "connector");
      return row !== undefined && row.pid !== null && row.pid !== connectorRow.pid && row.status === "running";
    });
    expect((await post(port, { text: "second" })).status).toBe(202);
    await until(() =>
      llm.requests.find(
        (request) => systemPrompt(request).includes("ROLE=front") && lastUserText(request).includes("second"),
      ),
    );
  }, 30_000);
});
