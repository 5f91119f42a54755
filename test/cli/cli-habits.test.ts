/**
 * CLI habits of upstream users: `help <command>` prints that command's help, `gdn` is a second name of the
 * launcher, and GOONDAN_PORT / GOONDAN_HOST choose the API every operator command reaches (ps included).
 */
import { afterEach, describe, expect, it } from "bun:test";
import { captureIo } from "./support/capture-io.ts";
import { COMMANDS, main } from "../../src/cli/main.ts";
import { apiAddress } from "../../src/cli/operator/api-client.ts";
import { processTable } from "../../src/cli/commands/ps.ts";
import { GOONDAN_BIN, until } from "../helpers/goondan-process.ts";
import packageJson from "../../package.json" with { type: "json" };

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(async () => {
  await server?.stop(true);
  server = undefined;
});

describe("CLI habits", () => {
  it("prints a command's own help for 'help <command>'", async () => {
    const io = captureIo();
    expect(await main(["help", "run"], io)).toBe(0);
    expect(io.out()).toStartWith("Usage: goondan run [bundle]");
    expect(io.out()).toContain("--env-file");
  });

  it("installs the launcher as gdn too", () => {
    expect(packageJson.bin).toEqual({ goondan: "bin/goondan", gdn: "bin/goondan" });
  });

  it("lets ps find the orchestrator at GOONDAN_HOST:GOONDAN_PORT", async () => {
    const seen: string[] = [];
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        seen.push(new URL(request.url).pathname);
        return Response.json({ processes: [] });
      },
    });
    const io = captureIo({ env: { GOONDAN_HOST: "127.0.0.1", GOONDAN_PORT: String(server.port) } });
    expect(await main(["ps", "--format", "json"], io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual([]);
    expect(seen).toEqual(["/v1/processes"]);
  });

  it("lets --host/--port win over GOONDAN_HOST/GOONDAN_PORT, which win over 127.0.0.1:8790 (run listens there too)", () => {
    const env = { GOONDAN_HOST: "0.0.0.0", GOONDAN_PORT: "9911" };
    expect(apiAddress({ flags: {}, env: {} })).toEqual({ host: "127.0.0.1", port: 8790 });
    expect(apiAddress({ flags: {}, env })).toEqual({ host: "0.0.0.0", port: 9911 });
    expect(apiAddress({ flags: { host: "::1", port: 0 }, env })).toEqual({ host: "::1", port: 0 });
  });

  it("shows CPU, memory and age in ps, from this host's /proc, and --json as --format json", async () => {
    const row = {
      kind: "agent" as const,
      agent: "worker",
      instanceKey: "main",
      pid: process.pid,
      status: "idle",
      restarts: 0,
      consecutiveCrashes: 0,
      startedAt: new Date(Date.now() - 90_000).toISOString(),
      queued: 0,
    };
    const table = processTable([row, { ...row, instanceKey: "gone", pid: null, startedAt: null }], { now: Date.now() });
    const [header, live, gone] = table.trimEnd().split("\n");
    expect(header).toMatch(/^KIND\s+AGENT\s+INSTANCE\s+PID\s+INSTANCES\s+STATUS\s+CPU\s+MEM\s+AGE\s+RESTARTS/);
    expect(live).toMatch(
      new RegExp(`worker\\s+main\\s+${process.pid}\\s+-\\s+idle\\s+\\d+\\.\\d%\\s+\\d+\\.\\dM\\s+1m\\s`),
    );
    expect(gone).toMatch(/worker\s+gone\s+-\s+-\s+idle\s+-\s+-\s+-\s/);
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ processes: [row] }) });
    const io = captureIo({ env: { GOONDAN_PORT: String(server.port) } });
    expect(await main(["ps", "--json"], io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual([row]);
  });

  it("lists every command in --help with one line each", async () => {
    const io = captureIo();
    expect(await main(["--help"], io)).toBe(0);
    for (const name of Object.keys(COMMANDS))
      expect(
        io
          .out()
          .split("\n")
          .filter((line) => line.startsWith(`  ${name} `)),
      ).toHaveLength(1);
  });

  it("prints a bash completion script that completes commands and a command's flags", async () => {
    const io = captureIo();
    expect(await main(["completion", "bash"], io)).toBe(0);
    const probe = Bun.spawnSync([
      "bash",
      "-c",
      `${io.out()}\nCOMP_WORDS=(gdn ru); COMP_CWORD=1; _goondan; echo "\${COMPREPLY[*]}"\nCOMP_WORDS=(goondan run --env); COMP_CWORD=2; _goondan; echo "\${COMPREPLY[*]}"`,
    ]);
    expect(probe.stdout.toString()).toBe("run\n--env-file\n");
  });

  it("follows with ps -w, one table per interval, until Ctrl-C (exit 130)", async () => {
    let calls = 0;
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        calls += 1;
        return Response.json({ processes: [] });
      },
    });
    const proc = Bun.spawn([process.execPath, GOONDAN_BIN, "ps", "-w", "--interval", "0.2"], {
      env: { ...process.env, GOONDAN_PORT: String(server.port) },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      await until(() => calls >= 3, { timeoutMs: 20_000 });
      proc.kill("SIGINT");
      expect(await proc.exited).toBe(130);
      const printed = await new Response(proc.stdout).text();
      expect(printed.split("\n").filter((line) => line.startsWith("KIND")).length).toBeGreaterThanOrEqual(3);
    } finally {
      if (proc.exitCode === null) proc.kill("SIGKILL");
    }
  }, 30_000);
});
