/**
 * What each sandbox profile (src/tools/sandbox-profile.ts) withholds, in real namespaces, as this user and, when the
 * tests run as root, as nobody too (the non-root path: two user namespaces): `network: none` leaves a server on the
 * machine's 127.0.0.1 out of reach and `host` does not; `hide` covers a directory (its files gone, nothing
 * writable) but for `keep`, which stays writable; `capabilities: none` leaves no capability, and no one inside can
 * unmount what hides the state root.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PidNamespaceSandboxOptions } from "../../src/tools/pid-namespace-sandbox.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const RUNNER = new URL("./fixtures/sandbox-run.ts", import.meta.url).pathname;
const onLinux = process.platform === "linux";
const setpriv = Bun.which("setpriv");
const isRoot = process.getuid?.() === 0;
const users: ("self" | "nobody")[] = isRoot && setpriv !== null ? ["self", "nobody"] : ["self"];
let server: ReturnType<typeof Bun.serve> | undefined;
let root: string;

beforeAll(() => {
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("daemon") });
  root = mkdtempSync(join(tmpdir(), "goondan-sandbox-profile-"));
  chmodSync(root, 0o755);
});

afterAll(() => {
  void server?.stop(true);
  rmSync(root, { recursive: true, force: true });
});

async function run(user: "self" | "nobody", profile: PidNamespaceSandboxOptions, command: string): Promise<string> {
  const asUser = user === "nobody" ? [setpriv as string, "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
  const proc = Bun.spawn([...asUser, process.execPath, RUNNER, JSON.stringify(profile), command], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  expect(await proc.exited).toBe(0);
  expect(stdout).not.toStartWith("unisolated");
  return `${stdout}${stderr}`;
}

/** A state root readable by anyone on the machine (so only the sandbox protects it), with a writable workdir. */
function stateRoot(): { dir: string; workdir: string; secret: string } {
  const dir = mkdtempSync(join(root, "state-"));
  const workdir = join(dir, "workspaces", "s", "instances", "a", "k", "workdir");
  mkdirSync(workdir, { recursive: true });
  const secret = `db-secret-${crypto.randomUUID()}`;
  writeFileSync(join(dir, "goondan.db"), secret);
  for (const path of [dir, join(dir, "goondan.db")]) chmodSync(path, 0o755);
  chmodSync(workdir, 0o777);
  return { dir, workdir, secret };
}

describe.skipIf(!onLinux)("sandbox profiles", () => {
  for (const user of users) {
    describe(`as ${user === "self" ? (isRoot ? "root" : "this user") : "nobody"}`, () => {
      const curl = () => `curl -sS -m 3 http://127.0.0.1:${server!.port}/; echo " curl=$?"`;

      it("network none: the machine's 127.0.0.1 is out of reach", async () => {
        const output = await run(user, { network: "none" }, curl());
        expect(output).not.toContain("daemon");
        expect(output).toContain("curl=7");
      });

      it("network host: the machine's 127.0.0.1 answers", async () => {
        expect(await run(user, { network: "host" }, curl())).toContain("daemon curl=0");
      });

      it("hide: the state root's files are gone and nothing is writable, but the kept workdir is", async () => {
        const { dir, workdir, secret } = stateRoot();
        const output = await run(
          user,
          { hide: dir, keep: workdir },
          `cat ${dir}/goondan.db; ls -A ${dir}; touch ${dir}/planted || echo refused; echo ok > ${workdir}/kept && echo kept; umount ${workdir} || echo locked; umount ${dir} || echo locked`,
        );
        expect(output).not.toContain(secret);
        expect(output).toContain("No such file or directory");
        expect(output).toContain("workspaces\nrefused\nkept\n");
        expect(output.match(/locked/g)?.length).toBe(2);
        expect(readFileSync(join(workdir, "kept"), "utf8")).toBe("ok\n");
        expect(() => readFileSync(join(dir, "planted"))).toThrow();
      });

      it("capabilities none: no capability at all, and no new privileges", async () => {
        const output = await run(
          user,
          { capabilities: "none" },
          "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status",
        );
        expect(output).toMatch(/CapEff:\s+0000000000000000/);
        // As root the bounding set is emptied too; another user has none to lose once it execs.
        if (user === "self" && isRoot) expect(output).toMatch(/CapBnd:\s+0000000000000000/);
        expect(output).toMatch(/NoNewPrivs:\s+1/);
      });
    });
  }

  describe.skipIf(!users.includes("nobody"))("as nobody with an unshare older than 2.38 (no --map-user)", () => {
    /** unshare, nsenter, setpriv and env, with an unshare whose help does not list --map-user. */
    function oldHelpers(): string {
      const dir = mkdtempSync(join(root, "old-util-linux-"));
      chmodSync(dir, 0o755);
      const real = (name: string) =>
        Bun.which(name, { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" });
      writeFileSync(
        join(dir, "unshare"),
        `#!/bin/sh\nif [ "$1" = --help ]; then ${real("unshare")} --help | grep -v map-user; exit 0; fi\nexec ${real("unshare")} "$@"\n`,
        { mode: 0o755 },
      );
      for (const name of ["nsenter", "setpriv", "env"]) symlinkSync(real(name) as string, join(dir, name));
      return dir;
    }

    it("still isolates processes and the network, and says the state root is not hidden", async () => {
      const { dir, secret } = stateRoot();
      const helperPath = oldHelpers();
      const output = await run(
        "nobody",
        { helperPath, hide: dir },
        `curl -sS -m 3 http://127.0.0.1:${server!.port}/; echo " curl=$?"; ls /proc | grep -c '^[0-9]'; cat ${dir}/goondan.db`,
      );
      expect(output).toMatch(/curl=7\n\d\n/); // no network; a handful of processes, the sandbox's own
      expect(output).toContain(secret); // the documented limit: readable, as the same user
      const probe = Bun.spawnSync(
        [
          setpriv as string,
          "--reuid=65534",
          "--regid=65534",
          "--clear-groups",
          process.execPath,
          "-e",
          `const { PidNamespaceSandbox } = await import(${JSON.stringify(new URL("../../src/tools/pid-namespace-sandbox.ts", import.meta.url).pathname)}); const s = new PidNamespaceSandbox(${JSON.stringify({ helperPath, hide: dir })}); console.log(JSON.stringify(await s.probe())); s.stop();`,
        ],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp" }, stdout: "pipe" },
      );
      expect(probe.stdout.toString()).toContain("NOT hidden");
    });
  });
});
