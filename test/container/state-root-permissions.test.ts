import { afterAll, describe, expect, it } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IMAGE_UID } from "../../src/shared/writable-state-root.ts";
import { GOONDAN_BIN, runToExit } from "../helpers/goondan-process.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

// A state volume the container cannot write: a bind mount owned by root, while the image runs as uid 10001.
// As root here, permission bits would not stop the test's own process, so the child runs as uid 10001 (setpriv)
// over a root-owned directory, exactly the container's case; as another user, a directory without write
// permission stops the child the same way. Either way the kernel really answers EACCES.
const repo = join(import.meta.dir, "..", "..");
const asRoot = process.getuid?.() === 0;
const SETPRIV = Bun.which("setpriv");
const reason = asRoot && SETPRIV === null ? "running as root without setpriv (util-linux) to drop to another uid" : "";
if (reason !== "" && process.env.CI === "true")
  throw new Error(`the state root permission test must run under CI: ${reason}`);
if (reason !== "") console.warn(`skipping the state root permission test: ${reason}`);

const root = mkdtempSync(join(tmpdir(), "goondan-perm-"));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(reason !== "")("goondan run on a state root it cannot write", () => {
  it("exits 1 with E_STATE_ROOT_NOT_WRITABLE naming the path, the uid and the fix, having written nothing", async () => {
    const stateRoot = join(root, "state");
    mkdirSync(stateRoot);
    const home = join(root, "home");
    mkdirSync(home);
    let uid = process.getuid?.() ?? 0;
    let gid = process.getgid?.() ?? 0;
    const prefix: string[] = [];
    if (asRoot) {
      // root owns the state root (mode 755); the child is the image's user.
      uid = IMAGE_UID;
      gid = IMAGE_UID;
      chownSync(home, uid, gid);
      prefix.push(SETPRIV as string, `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--");
    } else chmodSync(stateRoot, 0o555);

    const { code, stdout, stderr } = await runToExit({
      argv: [...prefix, process.execPath, GOONDAN_BIN, "run", repo, "--port", "0"],
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GOONDAN_STATE_ROOT: stateRoot },
    });
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    expect(stderr).toContain(
      `goondan run: the state root ${stateRoot} is not writable by uid ${uid} (gid ${gid}): EACCES`,
    );
    expect(stderr).toContain(`chown -R ${uid}:${gid}`);
    expect(stderr).toContain("docker run --user");
    expect(stderr).not.toContain("internal error");
    expect(readdirSync(stateRoot)).toEqual([]);
  }, 30_000);
});
