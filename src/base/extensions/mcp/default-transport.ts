/**
 * The transport of one MCP server when none is injected: the guarded stdio transport (a child with scrubbed
 * variables plus its own) or the SDK's Streamable HTTP transport, per the spec; and closing a client or transport
 * that may already be broken without throwing.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "../../../shared/logger.ts";
import { scrubbedEnv } from "../../tools/scrubbed-env.ts";
import { GuardedStdioTransport } from "./guarded-stdio-transport.ts";
import type { McpServerSpec } from "./server-spec.ts";

export function defaultTransport(spec: McpServerSpec, logger: Logger): Transport {
  const transport = spec.transport;
  // Like the bash tool's commands, a server gets harmless basics (PATH, HOME, locale…), never the agent's keys, and
  // runs in a sandbox of its own (the defaults when its spec names none).
  if (transport.type === "stdio")
    return new GuardedStdioTransport({
      ...transport,
      sandbox: transport.sandbox ?? { network: "none", isolation: "auto" },
      env: { ...scrubbedEnv(process.env), ...transport.env },
      secrets: spec.secrets,
      logger,
    });
  return new StreamableHTTPClientTransport(new URL(transport.url), { requestInit: { headers: transport.headers } });
}

export async function closeQuietly(client: Client | undefined, transport: Transport | undefined): Promise<void> {
  try {
    if (client !== undefined) await client.close();
    else await transport?.close();
  } catch {
    // closing a broken connection may fail; it is gone either way
  }
}
