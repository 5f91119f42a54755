/**
 * `goondan doctor [bundle]`: checks what `goondan run` needs before it starts and prints one line per
 * check: the Bun version, the bundle's validity, the env vars the selected Swarm reads, a writable
 * state root, a free API port, whether bash tool commands get their own PID namespace here (a
 * warning when not: they can then read unprotected processes' environments), and whether agent processes run in
 * their sandbox (`agents`). Exit 0 when all pass
 * (warnings allowed), 3 when the bundle is invalid or env vars are missing, 1 for any other failed check.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadBundle } from "../../config/load-bundle.ts";
import { selectSwarm } from "../../config/resolve.ts";
import { missingEnvIssues } from "../../config/value-source.ts";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { isGoondanError } from "../../shared/errors.ts";
import { PidNamespaceSandbox } from "../../tools/pid-namespace-sandbox.ts";
import { limitSupport, type LimitSupport } from "../../supervision/resource-limits.ts";
import { probeAgentSandbox, type AgentSandboxState } from "../../supervision/agent-sandbox.ts";
import { silentLogger } from "../../shared/logger.ts";
import { EXIT, type CliCommand } from "../command.ts";
import { API_FLAGS, apiTarget, callApi } from "../operator/api-client.ts";

type Outcome = "ok" | "warn" | "fail";
export interface Check {
  name: string;
  outcome: Outcome;
  detail: string;
  /** A failure caused by the user's config (exit 3) rather than the machine (exit 1). */
  config?: boolean;
}

const MIN_BUN = [1, 1, 0];
const MARK: Record<Outcome, string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };

function versionAtLeast(version: string, minimum: number[]): boolean {
  const parts = version.split(".").map((part) => Number.parseInt(part, 10));
  for (let index = 0; index < minimum.length; index++) {
    const have = parts[index] ?? 0;
    const need = minimum[index] ?? 0;
    if (have !== need) return have > need;
  }
  return true;
}

function checkBun(): Check {
  const version = process.versions.bun;
  if (!version)
    return { name: "bun", outcome: "fail", detail: "not running under Bun; install Bun >= 1.1 (npm i -g bun)" };
  return versionAtLeast(version, MIN_BUN)
    ? { name: "bun", outcome: "ok", detail: `Bun ${version}` }
    : { name: "bun", outcome: "fail", detail: `Bun ${version} is older than ${MIN_BUN.join(".")}` };
}

async function checkBundle(options: {
  target: string;
  swarm: string | undefined;
  env: Record<string, string | undefined>;
}): Promise<Check[]> {
  const result = await loadBundle(options.target, { env: options.env });
  if (!result.bundle) {
    return [
      {
        name: "bundle",
        outcome: "fail",
        config: true,
        detail: `${options.target} is invalid:\n${result.errors.map((issue) => `       ${issue.path}: ${issue.code} ${issue.message}`).join("\n")}`,
      },
    ];
  }
  const checks: Check[] = [
    {
      name: "bundle",
      outcome: "ok",
      detail: `${result.bundle.file} is valid${result.warnings.length > 0 ? ` (${result.warnings.length} warnings)` : ""}`,
    },
  ];
  try {
    const swarm = selectSwarm(result.bundle, options.swarm);
    const missing = missingEnvIssues(result.bundle, swarm, options.env);
    checks.push(
      missing.length === 0
        ? { name: "env", outcome: "ok", detail: `every env var Swarm/${swarm.metadata.name} reads is set` }
        : {
            name: "env",
            outcome: "fail",
            config: true,
            detail: `Swarm/${swarm.metadata.name} needs:\n${missing.map((issue) => `       ${issue.message} (${issue.path})`).join("\n")}`,
          },
    );
  } catch (error) {
    checks.push({
      name: "env",
      outcome: "fail",
      config: true,
      detail: isGoondanError(error) ? `${error.code}: ${error.message}` : String(error),
    });
  }
  return checks;
}

function checkStateRoot(stateRoot: string): Check {
  const probe = join(stateRoot, `.doctor-${process.pid}`);
  try {
    mkdirSync(stateRoot, { recursive: true });
    writeFileSync(probe, "ok");
    rmSync(probe, { force: true });
    return { name: "state root", outcome: "ok", detail: `${stateRoot} is writable` };
  } catch (error) {
    return {
      name: "state root",
      outcome: "fail",
      detail: `${stateRoot} is not writable (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

async function checkPort(options: {
  flags: Record<string, string | boolean | number | undefined>;
  env: Record<string, string | undefined>;
}): Promise<Check> {
  const target = apiTarget(options);
  const url = new URL(target.baseUrl);
  const port = Number(url.port);
  try {
    const server = Bun.serve({ hostname: url.hostname.replace(/^\[|\]$/g, ""), port, fetch: () => new Response("") });
    server.stop(true);
    return { name: "port", outcome: "ok", detail: `${url.host} is free for the HTTP API` };
  } catch {
    try {
      const response = await callApi({ target, method: "GET", path: "/healthz", timeoutMs: 2000 });
      if (response.status === 200 || response.status === 401)
        return { name: "port", outcome: "warn", detail: `${url.host} is in use by a running goondan orchestrator` };
    } catch {
      // not goondan
    }
    return {
      name: "port",
      outcome: "fail",
      detail: `${url.host} is in use by another program; pass --port to goondan run`,
    };
  }
}

/**
 * Starts the sandbox bash commands would get (own network namespace, the state root hidden when it exists), then
 * stops it, and says which isolation is in force for bash commands and MCP stdio servers, or why none is.
 */
export async function checkIsolation(sandbox?: PidNamespaceSandbox, stateRoot?: string): Promise<Check> {
  const hide = stateRoot !== undefined && isDirectory(stateRoot) ? { hide: stateRoot } : {};
  const probed = sandbox ?? new PidNamespaceSandbox({ network: "none", ...hide });
  try {
    const probe = await probed.probe();
    return probe.isolated
      ? {
          name: "isolation",
          outcome: "ok",
          detail: `bash tool commands run in their ${probe.description}; MCP stdio servers and connectors each in one of their own, without capabilities; network only where a Tool, MCP server or Connector says network: host. Other processes and their secrets, the state root and the daemon's API are out of reach`,
        }
      : {
          name: "isolation",
          outcome: "warn",
          detail: `bash tool commands, MCP stdio servers and connectors run WITHOUT a sandbox (${probe.reason}): they can read the environment of this user's unprotected processes, such as the node launcher of npx goondan run, which hold the model API keys and GOONDAN_API_TOKEN, read the state root (goondan.db) and reach the daemon's API on 127.0.0.1; run goondan where unshare works, or set isolation: required to refuse (see docs/threat-model.md)`,
        };
  } finally {
    probed.stop();
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Starts a process in the sandbox agent processes get under `goondan run` (their tool and extension modules run in
 * them) and says whether they are sandboxed, or why not.
 */
export async function checkAgentSandbox(stateRoot: string, state?: AgentSandboxState): Promise<Check> {
  const probed = state ?? (await probeAgentSandbox({ stateRoot, logger: silentLogger() })).state;
  return probed.isolated
    ? {
        name: "agents",
        outcome: "ok",
        detail: `agent processes are sandboxed: ${probed.description}; their tool and extension modules, and what those start, cannot see other processes, the API token or goondan.db`,
      }
    : {
        name: "agents",
        outcome: "warn",
        detail: `agent processes are NOT sandboxed (${probed.reason}): a tool or extension module can read the state root (goondan.db, the API token file, every instance's files); set an Agent's spec.process.sandbox: required to refuse to run it (see docs/threat-model.md)`,
      };
}

/** Says what holds an Agent's `spec.limits` on this machine (docs/limits.md#resource-limits). */
export function checkLimits(support: LimitSupport = limitSupport()): Check {
  return support.mechanism === "cgroup-v2"
    ? { name: "limits", outcome: "ok", detail: `agent spec.limits are held by ${support.detail}` }
    : {
        name: "limits",
        outcome: "warn",
        detail: `agent spec.limits are held by rlimits (open files), a lower priority (cpu) and a /proc watchdog (memory, processes): ${support.detail}`,
      };
}

export const command: CliCommand = {
  name: "doctor",
  summary:
    "check Bun, the bundle, the env vars it needs, the state root, the API port and the sandbox of bash and MCP servers",
  usage: "goondan doctor [bundle] [--swarm NAME] [--state-root DIR] [--port N]",
  maxPositionals: 1,
  bundleEnv: true,
  flags: {
    swarm: { type: "string", description: "the Swarm to check (default: the bundle's only one)" },
    "state-root": { type: "string", description: "state root (default GOONDAN_STATE_ROOT or ~/.goondan)" },
    ...API_FLAGS,
  },
  async run({ flags, positionals, io }) {
    const target = resolve(io.cwd, positionals[0] ?? ".");
    const stateRoot = typeof flags["state-root"] === "string" ? flags["state-root"] : defaultStateRoot(io.env);
    const checks: Check[] = [
      checkBun(),
      ...(await checkBundle({ target, swarm: typeof flags.swarm === "string" ? flags.swarm : undefined, env: io.env })),
      checkStateRoot(stateRoot),
      await checkPort({ flags, env: io.env }),
      await checkIsolation(undefined, stateRoot),
      await checkAgentSandbox(stateRoot),
      checkLimits(),
    ];
    for (const check of checks) io.stdout(`${MARK[check.outcome]}  ${check.name.padEnd(10)} ${check.detail}\n`);
    const failed = checks.filter((check) => check.outcome === "fail");
    io.stdout(failed.length === 0 ? "goondan is ready to run this bundle\n" : `${failed.length} check(s) failed\n`);
    if (failed.some((check) => check.config)) return EXIT.configInvalid;
    return failed.length > 0 ? EXIT.failure : EXIT.ok;
  },
};
