/**
 * The processes a bundle starts, as attackers, through a real `goondan run` (as whatever user runs the tests: root
 * on CI's container). A real stdio MCP server (test/fixtures/mcp/attacker-server.ts) tries to read the
 * orchestrator's and the agent child's /proc/<pid>/environ, scans every environment it can for the model key and
 * the API token, reads goondan.db and the API token file in the state root, and connects to the daemon's port: all
 * fail, and it has no capabilities. A `bash` command's curl to the daemon's port fails by default, and answers when
 * its Tool's config says `network: host`.
 */
import { describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { useCleanups } from "../../helpers/cleanups.ts";
import { startGoondanRun } from "../../helpers/goondan-process.ts";
import { lastUserText, startLoopbackLlm, toolResults, type LoopbackRequest } from "../../helpers/loopback-llm.ts";

const defer = useCleanups();
const ATTACKER = new URL("../../fixtures/mcp/attacker-server.ts", import.meta.url).pathname;
const BASH = new URL("../../../src/base/tools/bash.ts", import.meta.url).pathname;
const onLinux = process.platform === "linux";

interface Targets {
  pids: number[];
  files: string[];
  port: number;
  needles: string[];
}

function writeBundle(endpoint: string): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-mcp-sandbox-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  const exports =
    "exports: [{ name: exec, parameters: { type: object, properties: { command: { type: string } }, required: [command] } }]";
  writeFileSync(join(dir, "hostshell.ts"), `export { handlers } from ${JSON.stringify(BASH)};\n`);
  writeFileSync(
    join(dir, "goondan.yaml"),
    `apiVersion: goondan.ai/v1
kind: Model
metadata: { name: m }
spec: { provider: openai-compatible, model: loopback, endpoint: ${JSON.stringify(endpoint)}, apiKey: { valueFrom: { env: ATTACK_API_KEY } } }
---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: hostshell }
spec: { entry: ./hostshell.ts, config: { network: host }, ${exports} }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: victim }
spec:
  modelConfig: { modelRef: Model/m }
  prompt: { system: attack }
  tools: [{ kind: Tool, name: bash, package: "@goondan/base" }, Tool/hostshell]
  extensions:
    - ref: { kind: Extension, name: mcp, package: "@goondan/base" }
      config:
        servers:
          attacker: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(ATTACKER)}] }
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: attack }
spec: { entryAgent: Agent/victim, agents: [Agent/victim] }
`,
  );
  return dir;
}

describe.skipIf(!onLinux)("the processes a bundle starts, run as attackers under goondan run", () => {
  it("an MCP server reads no secret and reaches no daemon; bash reaches the daemon only with network: host", async () => {
    const apiKey = `sk-attack-${randomBytes(12).toString("hex")}`;
    const apiToken = `tok-attack-${randomBytes(12).toString("hex")}`;
    const tokenFileSecret = `file-token-${randomBytes(12).toString("hex")}`;
    let targets: Targets | undefined;
    const curl = (port: number) =>
      `curl -sS -m 3 -o /dev/null -w 'http=%{http_code}' http://127.0.0.1:${port}/healthz; echo " exit=$?"`;
    const llm = await startLoopbackLlm({
      respond: (request: LoopbackRequest) => {
        if (request.body.messages.at(-1)?.role === "tool")
          return { text: JSON.stringify(toolResults(request).at(-1)?.content) };
        const text = lastUserText(request);
        if (text === "mcp") return { toolCalls: [{ name: "attacker__probe", args: { ...targets } }] };
        if (text === "bash") return { toolCalls: [{ name: "bash__exec", args: { command: curl(targets!.port) } }] };
        if (text === "bashfiles")
          return {
            toolCalls: [
              {
                name: "bash__exec",
                args: {
                  command: `cat ${targets!.files.join(" ")} 2>&1; ls -A ${JSON.stringify(dirname(targets!.files[0]!))}; echo mine > kept.txt && cat kept.txt && pwd`,
                },
              },
            ],
          };
        if (text === "hostshell")
          return { toolCalls: [{ name: "hostshell__exec", args: { command: curl(targets!.port) } }] };
        return { text: `unscripted: ${text}` };
      },
    });
    defer(() => llm.close());
    const dir = writeBundle(llm.url);
    const stateRoot = join(dir, "state");
    mkdirSync(stateRoot);
    // The token file the daemon keeps in the state root (issue 25), written here so it exists whoever writes it.
    writeFileSync(join(stateRoot, "api-token"), tokenFileSecret, { mode: 0o600 });
    const daemon = await startGoondanRun({
      args: [dir, "--port", "0", "--state-root", stateRoot],
      env: { ATTACK_API_KEY: apiKey, GOONDAN_API_TOKEN: apiToken, GOONDAN_LOG_LEVEL: "info" },
      readyTimeoutMs: 30_000,
      onSpawn: (proc) =>
        defer(() => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
        }),
    });
    const headers = { "content-type": "application/json", authorization: `Bearer ${apiToken}` };
    const ask = async (input: string): Promise<string> => {
      const response = await fetch(`${daemon.base}/v1/events`, {
        method: "POST",
        headers,
        body: JSON.stringify({ input, wait: true }),
      });
      const body = (await response.json()) as { status: string; response: string };
      expect(body.status).toBe("ok");
      return body.response;
    };
    // A first turn starts the agent child; then its pid is known.
    expect(await ask("hello")).toBe("unscripted: hello");
    const processes = (await (await fetch(`${daemon.base}/v1/processes`, { headers })).json()) as {
      processes: { agent?: string; pid: number | null }[];
    };
    const childPid = processes.processes.find((row) => row.agent === "victim")?.pid;
    expect(typeof childPid).toBe("number");
    const orchestratorPid = (JSON.parse(readFileSync(join(stateRoot, "orchestrator.json"), "utf8")) as { pid: number })
      .pid;
    const database = join(stateRoot, "goondan.db");
    expect(readFileSync(database).length).toBeGreaterThan(0);
    targets = {
      pids: [orchestratorPid, daemon.proc.pid, childPid as number],
      files: [database, join(stateRoot, "api-token"), join(stateRoot, "orchestrator.json")],
      port: daemon.port,
      needles: [apiKey, apiToken, tokenFileSecret],
    };

    const answer = JSON.parse(await ask("mcp")) as { status: string; output: string };
    expect(answer.status).toBe("ok");
    const report = JSON.parse(answer.output) as {
      uid: number;
      capEff: string;
      environ: Record<string, string>;
      scan: { read: number; found: string[] };
      files: Record<string, string>;
      directories: Record<string, string>;
      http: string;
      tcp: string;
    };
    for (const pid of targets.pids) expect(report.environ[pid]).toStartWith("refused");
    expect(report.scan.found).toEqual([]);
    for (const file of targets.files) expect(report.files[file]).toStartWith("refused");
    expect(report.directories[stateRoot]).toBe("read: "); // an empty read-only tmpfs
    expect(report.http).toStartWith("refused");
    expect(report.tcp).toStartWith("refused");
    expect(report.capEff).toBe("0000000000000000");
    // Nothing the server could read reached the model (in a tool result) or the log.
    const results = llm.requests.flatMap((request) => toolResults(request).map((result) => result.content));
    const everything = `${JSON.stringify(results)}\n${daemon.lines.map((line) => JSON.stringify(line)).join("\n")}`;
    for (const needle of targets.needles) expect(everything).not.toContain(needle);

    // bash: no network by default; the machine's with network: host.
    expect(await ask("bash")).toMatch(/http=000 exit=7/);
    expect(await ask("hostshell")).toMatch(/http=200 exit=0/);
    // bash sees the instance's own workdir, and nothing else of the state root.
    const files = await ask("bashfiles");
    for (const file of targets.files) expect(files).toContain(`cat: ${file}: No such file or directory`);
    expect(files).toContain("workspaces\\n"); // the only entry: the path down to the workdir
    expect(files).toMatch(/mine\\n\/.*\/workdir\\n/);
    const workdir = /mine\\n(\/[^\\]*\/workdir)\\n/.exec(files)?.[1];
    expect(readFileSync(join(workdir!, "kept.txt"), "utf8")).toBe("mine\n");
    expect(llm.unexpected).toEqual([]);
  }, 90_000);
});
