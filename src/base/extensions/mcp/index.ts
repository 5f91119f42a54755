/**
 * Built-in extension `mcp`: the tools of MCP servers (stdio or Streamable HTTP, configured by name under
 * `servers`) become tools of the agent, named `<server>__<tool>`. Servers start with the agent process and
 * stop with it (see guarded-stdio-transport.ts); `register` waits for each server's first connection attempt,
 * at most its `connectTimeoutMs` (and never past STARTUP_WAIT_MS), so the first turn already sees the tools of
 * every server that came up.
 * `probeServers` (probe.ts) is what `goondan validate --probe-mcp` runs with the same config.
 */
import type { ExtensionApi, JsonObject } from "../../../index.ts";
import { startMcpBridge } from "./mcp-bridge.ts";
import { readServerSpecs } from "./server-spec.ts";

export { probeServers, type ServerProbe } from "./probe.ts";

/**
 * The longest the agent's start waits for its servers, whatever their connectTimeoutMs: the orchestrator gives a
 * starting agent 30 s to say ready. Servers still connecting after it register their tools when they come up.
 */
export const STARTUP_WAIT_MS = 20_000;

export async function register(api: ExtensionApi, config: JsonObject): Promise<void> {
  const servers = readServerSpecs(config, {
    bundleDir: api.agent.bundleDir ?? process.cwd(),
    ...(api.agent.stateRoot === undefined ? {} : { stateRoot: api.agent.stateRoot }),
  });
  const bridge = startMcpBridge({ extensionName: api.name, servers, tools: api.tools, logger: api.logger });
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([bridge.started, new Promise<void>((resolve) => (timer = setTimeout(resolve, STARTUP_WAIT_MS)))]);
  clearTimeout(timer);
}
