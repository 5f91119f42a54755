import { afterAll, describe, expect, it } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IMAGE_UID } from "../../src/shared/writable-state-root.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";
import { GOONDAN_BIN, runToExit } from "../helpers/goondan-process.ts";

realProcessTimeouts();

// A state volume the container cannot write: a bind mount owned by root while the image runs as uid 10001, or a
// volume whose files an earlier run as root left behind. As root here, permission bits would not stop the test's
// own process, so the child runs as uid 10001 (setpriv) over root-owned files, exactly the container's case; as
// another user, files without write permission stop the child the same way. Either way the kernel answers EACCES.
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

/** `goondan run` as the image's user (as root) or as ourselves, on GOONDAN_STATE_ROOT, as the image runs it. */
async function runAsUser(options: { stateRoot: string; home: string }) {
  const uid = asRoot ? IMAGE_UID : (process.getuid?.() ?? 0);
  const gid = asRoot ? IMAGE_UID : (process.getgid?.() ?? 0);
  if (asRoot) chownSync(options.home, uid, gid);
  const prefix = asRoot ? [SETPRIV as string, `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--"] : [];
  const result = await runToExit({
    argv: [...prefix, process.execPath, GOONDAN_BIN, "run", repo, "--port", "0"],
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: options.home, GOONDAN_STATE_ROOT: options.stateRoot },
  });
  return { ...result, uid, gid };
}

function freshDirs(name: string): { stateRoot: string; home: string } {
  const stateRoot = join(root, name, "state");
  const home = join(root, name, "home");
  mkdirSync(stateRoot, { recursive: true });
  mkdirSync(home);
  chmodSync(join(root, name), 0o755);
  return { stateRoot, home };
}

describe.skipIf(reason !== "")("goondan run on a state root it cannot write", () => {
  it("a root-owned state root: exits 1 with E_STATE_ROOT_NOT_WRITABLE naming the path, the uid and the fix, writing nothing", async () => {
    const dirs = freshDirs("root-owned");
    if (!asRoot) chmodSync(dirs.stateRoot, 0o555);
    const { code, stdout, stderr, uid, gid } = await runAsUser(dirs);
    expect({ code, stdout }).toEqual({ code: 1, stdout: "" });
    expect(stderr).toContain(
      `goondan run: the state root ${dirs.stateRoot} is not writable by uid ${uid} (gid ${gid}): EACCES`,
    );
    expect(stderr).toContain(`chown -R ${uid}:${gid}`);
    expect(stderr).toContain("docker run --user");
    expect(stderr).not.toContain("internal error");
    expect(readdirSync(dirs.stateRoot)).toEqual([]);
  });

  it("a state root of its own holding a database an earlier run as root left: names that file, not a readonly database", async () => {
    const dirs = freshDirs("left-by-root");
    const database = join(dirs.stateRoot, "goondan.db");
    writeFileSync(database, "");
    if (asRoot) chownSync(dirs.stateRoot, IMAGE_UID, IMAGE_UID);
    else chmodSync(database, 0o444);
    const { code, stderr, uid, gid } = await runAsUser(dirs);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `the state root ${dirs.stateRoot} is not writable by uid ${uid} (gid ${gid}): ${database} in it is not: EACCES`,
    );
    expect(stderr).not.toContain("internal error");
    expect(readdirSync(dirs.stateRoot)).toEqual(["goondan.db"]);
  });
});
