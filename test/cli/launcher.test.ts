/**
 * bin/goondan under Node (the `npx goondan` path): it re-executes itself under Bun, and once Bun has the
 * environment it blanks its own, so the launcher, which lives as long as the run, holds no model API key nor
 * GOONDAN_API_TOKEN that a same-user process could read from /proc/<pid>/environ. Signals still pass through.
 */
import { describe, expect, it } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanups } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, until } from "../helpers/goondan-process.ts";

const defer = useCleanups();
const node = Bun.which("node");
const REPO = join(import.meta.dir, "../..");

describe.skipIf(process.platform !== "linux")("the Node launcher", () => {
  it("keeps no secret in its own environment while the run it launched goes on, and still passes SIGTERM on", async () => {
    if (node === null) throw new Error("node is not on PATH");
    const secret = `sk-launcher-${randomBytes(12).toString("hex")}`;
    const stateRoot = mkdtempSync(join(tmpdir(), "goondan-launcher-"));
    defer(() => rmSync(stateRoot, { recursive: true, force: true }));
    const proc = Bun.spawn([node, GOONDAN_BIN, "run", REPO, "--port", "0", "--state-root", stateRoot], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: stateRoot,
        SOME_API_KEY: secret,
        GOONDAN_API_TOKEN: secret,
      },
      stdout: "pipe",
      stderr: "ignore",
    });
    defer(() => {
      if (proc.exitCode === null) proc.kill("SIGKILL");
    });
    let output = "";
    void (async () => {
      for await (const chunk of proc.stdout) output += new TextDecoder().decode(chunk);
    })();
    await until(() => output.includes('"msg":"ready"'), { timeoutMs: 20_000 });
    const launcherEnv = readFileSync(`/proc/${proc.pid}/environ`, "utf8");
    expect(launcherEnv).not.toContain(secret);
    // The launcher is still there (it forwards signals), and its Bun child got the environment.
    const child = readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, "utf8")
      .trim()
      .split(" ")
      .map(Number)[0] as number;
    expect(readFileSync(`/proc/${child}/cmdline`, "utf8")).toContain("goondan");
    if (process.getuid?.() === 0) expect(readFileSync(`/proc/${child}/environ`, "utf8")).toContain(secret);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }, 30_000);
});
