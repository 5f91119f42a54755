/**
 * Reload and connectors with real processes: the Daemon (the one composition root `goondan run` uses) with real
 * agent children on the loopback LLM, the bundle watcher, the restart coordinator (self-restart) and real
 * connector children.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selectSwarm } from "../../../src/config/resolve.ts";
import { bunProcessSpawner } from "../../../src/supervision/process-spawner.ts";
import { validateBundleOnDisk } from "../../../src/config/validate-on-disk.ts";
import { Daemon } from "../../../src/daemon/daemon.ts";
import { CONNECTOR_ENTRY_SCRIPT } from "../../../src/protocol/child-entry.ts";
import { createLogger } from "../../../src/shared/logger.ts";
import { startLoopbackLlm, systemPrompt, lastUserText } from "../../helpers/loopback-llm.ts";
import { liveEnv, liveModel, writeLiveBundle } from "../../fixtures/reload/live-swarm.ts";
import { until as pollUntil } from "../../helpers/goondan-process.ts";
import { useCleanups } from "../../helpers/cleanups.ts";

const defer = useCleanups();

const until = <T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000) =>
  pollUntil(probe, { timeoutMs, intervalMs: 25 });

async function harness(options: { extraYaml?: string; watch?: boolean } = {}) {
  const llm = await startLoopbackLlm({ respond: liveModel });
  const dir = writeLiveBundle({ endpoint: llm.url, ...(options.extraYaml ? { extraYaml: options.extraYaml } : {}) });
  const stateRoot = mkdtempSync(join(tmpdir(), "goondan-live-state-"));
  const env = { ...process.env, ...liveEnv } as Record<string, string | undefined>;
  const logLines: Record<string, unknown>[] = [];
  const logger = createLogger("test", {
    destination: { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
    level: "info",
  });
  const load = () => validateBundleOnDisk({ target: dir, env });
  const first = await load();
  if (!first.bundle) throw new Error(`fixture invalid: ${JSON.stringify(first.errors)}`);
  const daemon = await Daemon.start({
    bundle: first.bundle,
    swarm: selectSwarm(first.bundle).metadata.name,
    stateRoot,
    env,
    logger,
    spawner: bunProcessSpawner({ output: "ignore", env }),
    connectorSpawner: bunProcessSpawner({ entryScript: CONNECTOR_ENTRY_SCRIPT, output: "ignore", env }),
    watch: options.watch === true,
    reloadSignal: false,
    coalesceMs: 100,
  });
  const { orchestrator } = daemon;
  defer(async () => {
    await daemon.stop("test over");
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(stateRoot, { recursive: true, force: true });
  });
  const ask = async (agent: string, input: string, instanceKey?: string) =>
    await orchestrator.submit({ agent, input, ...(instanceKey ? { instanceKey } : {}) }).outcome;
  const pidOf = (agent: string) => orchestrator.processes().find((row) => row.agent === agent)?.pid ?? null;
  return { llm, dir, env, daemon, orchestrator, logLines, logger, ask, pidOf };
}

describe("live reload with real agent children", () => {
  it("restarts only the agent whose tool helper changed under --watch, and its next call runs the new code", async () => {
    const live = await harness({ watch: true });
    expect((await live.ask("front", "greet please")).response).toContain("greeting from v1");
    expect((await live.ask("other", "hello")).status).toBe("ok");
    const frontPid = live.pidOf("front");
    const otherPid = live.pidOf("other");
    expect(frontPid).not.toBeNull();
    writeFileSync(join(live.dir, "tools/version.ts"), 'export const VERSION = "v2";\n');
    await until(() => {
      const pid = live.pidOf("front");
      return pid !== null && pid !== frontPid;
    });
    expect(live.pidOf("other")).toBe(otherPid);
    expect((await live.ask("front", "greet again")).response).toContain("greeting from v2");
  }, 30_000);

  it("keeps serving with the old swarm when the YAML breaks under --watch", async () => {
    const live = await harness({ watch: true });
    expect((await live.ask("front", "greet please")).response).toContain("greeting from v1");
    const frontPid = live.pidOf("front");
    const yaml = join(live.dir, "goondan.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace("tools: [Tool/greet,", "tools: [Tool/missing,"));
    await until(() =>
      live.logLines.some((line) => line.msg === "invalid bundle change ignored; the running swarm is unchanged"),
    );
    await live.daemon.watcher?.idle();
    expect(live.pidOf("front")).toBe(frontPid);
    const answer = await live.ask("front", "greet once more");
    expect(answer.response).toContain("greeting from v1");
    expect(live.pidOf("front")).toBe(frontPid);
  }, 30_000);

  it("answers a self-restart with the validation errors when the bundle on disk is invalid, and restarts after the turn when it is valid", async () => {
    const live = await harness();
    expect((await live.ask("front", "hello")).status).toBe("ok"); // front runs before its files break
    const yaml = join(live.dir, "goondan.yaml");
    const good = readFileSync(yaml, "utf8");
    writeFileSync(
      yaml,
      good.replace(
        'modelRef: Model/loopback }\n  prompt: { system: "ROLE=other" }',
        'modelRef: Model/nowhere }\n  prompt: { system: "ROLE=other" }',
      ),
    );
    const refused = await live.ask("front", "restart please");
    expect(refused.error).toBeUndefined();
    expect(refused.response).toContain("E_SELF_RESTART_INVALID_BUNDLE");
    expect(refused.response).toContain("E_CONFIG_REF_NOT_FOUND");
    const frontPid = live.pidOf("front");
    await Bun.sleep(300);
    expect(live.pidOf("front")).toBe(frontPid);

    writeFileSync(yaml, good);
    const accepted = await live.ask("front", "restart please");
    expect(accepted.status).toBe("ok");
    expect(accepted.response).toContain("accepted");
    await until(() => live.logLines.some((line) => line.msg === "reloaded"));
    await until(() => {
      const pid = live.pidOf("front");
      return pid !== null && pid !== frontPid;
    });
    expect((await live.ask("front", "greet after restart")).response).toContain("greeting from v1");
  }, 30_000);
});

describe("connectors with real connector children", () => {
  it("routes a webhook POST through the Connection's ingress rule to the right agent instance", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = server.port as number;
    server.stop(true);
    const extraYaml = `---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: tickets }
spec:
  connectorRef: { kind: Connector, name: webhook, package: "@goondan/base" }
  config: { port: "${port}", path: /tickets }
  ingress:
    rules:
      - match: { event: webhook, properties: { queue: support } }
        route: { agentRef: Agent/other, instanceKeyProperty: ticket, instanceKeyPrefix: "t-" }
`;
    const live = await harness({ extraYaml });
    const post = async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await fetch(`http://127.0.0.1:${port}/tickets`, {
            method: "POST",
            body: JSON.stringify({ text: "printer on fire", queue: "support", ticket: 7 }),
          });
        } catch (error) {
          if (attempt > 200) throw error;
          await Bun.sleep(25);
        }
      }
    };
    const response = await post();
    expect(response.status).toBe(202);
    const { eventId } = (await response.json()) as { eventId: string };
    expect(eventId).toMatch(/^evt_/);
    const request = await until(() =>
      live.llm.requests.find((candidate) => systemPrompt(candidate).includes("ROLE=other")),
    );
    expect(lastUserText(request)).toContain("printer on fire");
    await until(async () =>
      (await live.orchestrator.instances()).find(
        (instance) => instance.agent === "other" && instance.instanceKey === "t-7",
      ),
    );
    expect(live.daemon.processes().filter((row) => row.kind === "connector")).toMatchObject([
      { kind: "connector", agent: "connector:tickets", status: "running" },
    ]);
  }, 30_000);
});
