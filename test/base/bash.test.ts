import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scrubbedEnv } from "../../src/base/tools/scrubbed-env.ts";
import { baseTools, errorOf, okOutput, type BaseToolHarness } from "./base-tools.ts";

let workdir: string;
let tools: BaseToolHarness;

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), "goondan-bash-"));
  await mkdir(join(workdir, "sub"));
  tools = await baseTools({ context: { workdir }, config: { bash: { maxOutputBytes: 4096 } } });
});

afterAll(async () => {
  await rm(workdir, { recursive: true, force: true });
});

describe("bash__exec", () => {
  it("runs a command in the workspace and returns exit code and output", async () => {
    const output = okOutput(await tools.call("bash__exec", { command: "pwd; echo out; echo err >&2" }));
    expect(output.stdout).toBe(`${workdir}\nout\n`);
    expect(output.stderr).toBe("err\n");
    expect(output.exitCode).toBe(0);
    expect(output.signal).toBeNull();
    expect(output.timedOut).toBe(false);
  });

  it("reports a non-zero exit as a normal result", async () => {
    expect(okOutput(await tools.call("bash__exec", { command: "exit 3" })).exitCode).toBe(3);
  });

  it("runs in a confined cwd and feeds stdin", async () => {
    const output = okOutput(await tools.call("bash__exec", { command: "pwd; cat", cwd: "sub", stdin: "hello" }));
    expect(output.stdout).toBe(`${join(workdir, "sub")}\nhello`);
  });

  it("refuses a cwd outside the workspace", async () => {
    expect(errorOf(await tools.call("bash__exec", { command: "ls", cwd: ".." })).code).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(errorOf(await tools.call("bash__exec", { command: "ls", cwd: "missing" })).code).toBe("E_BASH_CWD");
  });

  it("never passes API keys or secrets to the command", async () => {
    const names = [
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "GOONDAN_SECRET_SLACK_TOKEN",
      "GOONDAN_API_TOKEN",
      "MY_SECRET",
      "DB_PASSWORD",
    ];
    for (const name of names) process.env[name] = "leaked-value";
    try {
      const output = okOutput(await tools.call("bash__exec", { command: "env" }));
      expect(String(output.stdout)).not.toContain("leaked-value");
      expect(String(output.stdout)).toContain("PATH=");
    } finally {
      for (const name of names) delete process.env[name];
    }
  });

  it("keeps only allowlisted, non-secret variable names", () => {
    expect(scrubbedEnv({ PATH: "/bin", HOME: "/home/x", AWS_SECRET_ACCESS_KEY: "s", FOO: "bar" })).toEqual({
      PATH: "/bin",
      HOME: "/home/x",
      TERM: "dumb",
      LANG: "C.UTF-8",
    });
  });

  it("kills the whole process group on timeout, background jobs included", async () => {
    const marker = join(workdir, "survived");
    const started = Date.now();
    const output = okOutput(
      await tools.call("bash__exec", { command: `(sleep 1; echo alive > ${marker}) & sleep 30`, timeoutMs: 300 }),
    );
    expect(output.timedOut).toBe(true);
    expect(output.signal).toBe("SIGKILL");
    expect(Date.now() - started).toBeLessThan(5000);
    await Bun.sleep(1300);
    expect(await Bun.file(marker).exists()).toBe(false);
  });

  it("does not wait for background jobs that outlive the command", async () => {
    const started = Date.now();
    const output = okOutput(await tools.call("bash__exec", { command: "sleep 30 & echo started" }));
    expect(output.stdout).toBe("started\n");
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("caps stdout and says how much was produced", async () => {
    const output = okOutput(await tools.call("bash__exec", { command: "head -c 100000 /dev/zero | tr '\\0' a" }));
    expect(String(output.stdout).length).toBe(4096);
    expect(output.stdoutTruncated).toBe("only the first 4096 of 100000 bytes are shown");
  });

  it("stops on ctx.signal (shutdown)", async () => {
    const parent = new AbortController();
    setTimeout(() => parent.abort(), 100);
    const result = await tools.call("bash__exec", { command: "sleep 30" }, { parentSignal: parent.signal });
    expect(errorOf(result).code).toBe("E_TOOL_CANCELLED");
  });

  it("refuses bad arguments before running anything", async () => {
    expect(errorOf(await tools.call("bash__exec", {})).code).toBe("E_TOOL_INVALID_ARGS");
    expect(errorOf(await tools.call("bash__exec", { command: "ls", login: true })).code).toBe("E_TOOL_INVALID_ARGS");
    expect(errorOf(await tools.call("bash__exec", { command: "ls", env: { "NOT-A-NAME": "x" } })).code).toBe(
      "E_TOOL_INVALID_ARGS",
    );
    expect(errorOf(await tools.call("bash__exec", { command: "ls", env: { A: { nested: 1 } } })).code).toBe(
      "E_TOOL_INVALID_ARGS",
    );
    // An out-of-range timeoutMs is brought within range, as upstream takes it (numeric-parameters.test.ts).
  });
});

describe("bash__script", () => {
  it("runs a non-executable script with sh, passing arguments", async () => {
    await writeFile(join(workdir, "greet.sh"), 'echo "hello $1"\n');
    expect(okOutput(await tools.call("bash__script", { path: "greet.sh", args: ["world"] })).stdout).toBe(
      "hello world\n",
    );
  });

  it("runs an executable script directly (its shebang applies)", async () => {
    await writeFile(join(workdir, "run.sh"), "#!/bin/sh\necho direct $#\n");
    await chmod(join(workdir, "run.sh"), 0o755);
    expect(okOutput(await tools.call("bash__script", { path: "run.sh", args: ["a", "b"] })).stdout).toBe("direct 2\n");
  });

  it("refuses a script outside the workspace or missing", async () => {
    expect(errorOf(await tools.call("bash__script", { path: "/etc/profile" })).code).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(errorOf(await tools.call("bash__script", { path: "../x.sh" })).code).toBe("E_PATH_OUTSIDE_WORKDIR");
    expect(errorOf(await tools.call("bash__script", { path: "nope.sh" })).code).toBe("E_BASH_SCRIPT_NOT_FOUND");
  });
});

describe("upstream's bash parameters: env and shell", () => {
  it("adds env entries to the scrubbed environment, numbers and booleans as text", async () => {
    const output = okOutput(
      await tools.call("bash__exec", {
        command: 'echo "$GREETING $COUNT $VERBOSE"; echo "$HOME"',
        env: { GREETING: "hi", COUNT: 3, VERBOSE: true },
      }),
    );
    expect(output.stdout).toBe(`hi 3 true\n${process.env.HOME ?? ""}\n`);
  });

  it("never lets env reach the agent's own secrets: a named variable gets only the value written in the call", async () => {
    process.env.OPENAI_API_KEY = "sk-agent-secret";
    try {
      const output = okOutput(
        await tools.call("bash__exec", {
          command: "env",
          env: { OPENAI_API_KEY: "given-by-the-model", OTHER: "$OPENAI_API_KEY" },
        }),
      );
      expect(String(output.stdout)).not.toContain("sk-agent-secret");
      expect(String(output.stdout)).toContain("OPENAI_API_KEY=given-by-the-model\n");
      expect(String(output.stdout)).toContain("OTHER=$OPENAI_API_KEY\n");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it("keeps its own run marker whatever env says", async () => {
    const output = okOutput(
      await tools.call("bash__exec", { command: "echo $GOONDAN_TOOL_RUN", env: { GOONDAN_TOOL_RUN: "forged" } }),
    );
    expect(String(output.stdout)).toMatch(/^[0-9a-f]{24}\n$/);
  });

  it("runs exec with the shell asked for, by absolute path or by name on PATH", async () => {
    const bash = Bun.which("bash");
    if (bash === null) throw new Error("bash is not installed");
    expect(
      okOutput(await tools.call("bash__exec", { command: 'echo "${BASH_VERSION:+bash}"', shell: "bash" })).stdout,
    ).toBe("bash\n");
    expect(
      okOutput(await tools.call("bash__exec", { command: 'echo "${BASH_VERSION:+bash}"', shell: bash })).stdout,
    ).toBe("bash\n");
    expect(okOutput(await tools.call("bash__exec", { command: 'echo "${BASH_VERSION:-plain}"' })).stdout).toBe(
      "plain\n",
    );
  });

  it("refuses a shell that is not an executable file", async () => {
    await writeFile(join(workdir, "not-executable"), "text\n");
    for (const shell of [
      "no-such-shell",
      "./relative/sh",
      join(workdir, "not-executable"),
      "/nonexistent/sh",
      workdir,
    ]) {
      expect(errorOf(await tools.call("bash__exec", { command: "true", shell })).code).toBe("E_BASH_SHELL_NOT_FOUND");
    }
  });

  it("runs a script with the shell asked for, and takes env there too", async () => {
    await writeFile(join(workdir, "which.sh"), 'echo "${BASH_VERSION:+bash} $WHO"\n');
    expect(
      okOutput(await tools.call("bash__script", { path: "which.sh", shell: "bash", env: { WHO: "me" } })).stdout,
    ).toBe("bash me\n");
  });

  it("takes any timeoutMs upstream takes: a fraction, and 0 for the longest", async () => {
    expect(okOutput(await tools.call("bash__exec", { command: "true", timeoutMs: 1500.5 })).exitCode).toBe(0);
    expect(okOutput(await tools.call("bash__exec", { command: "true", timeoutMs: 0 })).exitCode).toBe(0);
  });
});
