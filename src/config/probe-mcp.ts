/**
 * `goondan validate --probe-mcp`: for each Agent that uses the built-in `mcp` extension, resolves its merged
 * config from the environment (as its agent process would), then asks the extension's own `probeServers` to
 * start each server once, list its tools as the model would see them, and stop it. A server that cannot be
 * reached is an error (E_CONFIG_MCP_UNREACHABLE, or E_CONFIG_ENV_MISSING for an unset ValueSource); a tool
 * that cannot be offered, a warning (W_CONFIG_MCP_TOOL_REFUSED). Agents are probed one after another.
 */
import { relative } from "node:path";
import type { JsonObject } from "../shared/json.ts";
import { ISSUE_CODES, type IssueCode } from "./issue-codes.ts";
import { formatPath, IssueList, type PathSegment } from "./issues.ts";
import { agentExtensions, resolveEntry } from "./resolve.ts";
import { MCP_EXTENSION_NAME } from "./schemas/mcp-config.ts";
import { BUILTIN_PACKAGE, type AgentResource, type Bundle, type ConfigIssue } from "./types.ts";
import { resolveConfigValues, type Env } from "./value-source.ts";

export interface McpServerReport {
  agent: string;
  /** Where the server is configured: `goondan.yaml#2.spec.extensions[0].config.servers.files`. */
  path: string;
  server: string;
  transport: "stdio" | "http";
  ok: boolean;
  /** The tool names the model would see. */
  tools: string[];
  refused: { tool: string; reason: string }[];
  error?: string;
  durationMs: number;
}

/** The shape of the extension module's `probeServers` (src/base/extensions/mcp/probe.ts). */
type ProbeServers = (
  config: JsonObject,
  options: { bundleDir: string; extensionName?: string },
) => Promise<Omit<McpServerReport, "agent" | "path">[]>;

export async function probeMcp(options: {
  bundle: Bundle;
  env: Env;
}): Promise<{ servers: McpServerReport[]; errors: ConfigIssue[]; warnings: ConfigIssue[] }> {
  const { bundle } = options;
  const issues = new IssueList();
  const servers: McpServerReport[] = [];
  const agents = bundle.resources.filter(
    (resource): resource is AgentResource => resource.kind === "Agent" && resource.source.package === undefined,
  );
  for (const agent of agents) {
    const uses = agentExtensions(bundle, agent);
    for (const [index, use] of uses.entries()) {
      if (use.resource.metadata.name !== MCP_EXTENSION_NAME || use.resource.source.package !== BUILTIN_PACKAGE)
        continue;
      const site = {
        label: relative(bundle.dir, agent.source.file) || agent.source.file,
        docIndex: agent.source.docIndex,
      };
      const at: PathSegment[] = ["spec", "extensions", index, "config"];
      const config = resolveConfigValues(use.config, options.env) as JsonObject;
      let reports: Awaited<ReturnType<ProbeServers>>;
      try {
        const module = (await import(resolveEntry(use.resource))) as { probeServers: ProbeServers };
        reports = await module.probeServers(config, {
          bundleDir: bundle.dir,
          extensionName: use.resource.metadata.name,
        });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        issues.add({
          code: typeof code === "string" && code in ISSUE_CODES ? (code as IssueCode) : "E_CONFIG_MCP_UNREACHABLE",
          message: error instanceof Error ? error.message : String(error),
          path: formatPath(site, at),
        });
        continue;
      }
      for (const report of reports) {
        const path = formatPath(site, [...at, "servers", report.server]);
        servers.push({ agent: agent.metadata.name, path, ...report });
        if (!report.ok)
          issues.add({
            code: "E_CONFIG_MCP_UNREACHABLE",
            message: `mcp server ${report.server} (${report.transport}): ${report.error ?? "no tools listed"}`,
            path,
          });
        for (const refusal of report.refused)
          issues.add({
            code: "W_CONFIG_MCP_TOOL_REFUSED",
            message: `mcp server ${report.server}, tool ${refusal.tool}: ${refusal.reason}`,
            path,
          });
      }
    }
  }
  return { servers, errors: issues.errors, warnings: issues.warnings };
}

/** One line per server: where, how it went, and its tools. */
export function formatServerReport(report: McpServerReport): string {
  if (!report.ok)
    return `${report.path}: mcp server ${report.server} (${report.transport}) unreachable after ${report.durationMs} ms`;
  const names = report.tools.length === 0 ? "none" : report.tools.join(", ");
  return `${report.path}: mcp server ${report.server} (${report.transport}) lists ${report.tools.length} tool${report.tools.length === 1 ? "" : "s"} in ${report.durationMs} ms: ${names}`;
}
