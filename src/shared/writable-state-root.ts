/**
 * The check that a state root can be written before goondan writes to it: the directory is created if need be, a
 * probe file is created and removed in it (what really decides, where permission bits, ACLs, read-only mounts and
 * root's privileges all play), and every entry already at its top (the database, `cache/`, `workspaces/`, left by
 * an earlier run, perhaps as root) must be writable too. A state root this process cannot write (a root-owned bind
 * mount in a container, a read-only volume, files an earlier run as root left) is `E_STATE_ROOT_NOT_WRITABLE`,
 * naming the path, the uid and gid that tried, and the fix, instead of a bare EACCES or "readonly database" from
 * whichever file happened to come first.
 */
import { accessSync, closeSync, constants, mkdirSync, openSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, SystemError } from "./errors.ts";

/** The uid the container image runs as (Dockerfile `USER 10001:10001`). */
export const IMAGE_UID = 10001;

const PERMISSION_CODES = new Set(["EACCES", "EPERM", "EROFS"]);

export function ensureWritableStateRoot(options: { stateRoot: string }): void {
  const { stateRoot } = options;
  let blocked = stateRoot;
  try {
    mkdirSync(stateRoot, { recursive: true });
    const probe = join(stateRoot, `.write-check-${process.pid}`);
    closeSync(openSync(probe, "wx"));
    unlinkSync(probe);
    for (const entry of readdirSync(stateRoot)) {
      blocked = join(stateRoot, entry);
      accessSync(blocked, constants.W_OK);
    }
  } catch (error) {
    const code = describe(error).code ?? "";
    if (!PERMISSION_CODES.has(code)) throw error;
    throw notWritable({ ...options, blocked, code, cause: error });
  }
}

function notWritable(options: { stateRoot: string; blocked: string; code: string; cause: unknown }): SystemError {
  const { stateRoot, blocked, code } = options;
  const uid = process.getuid?.() ?? -1;
  const gid = process.getgid?.() ?? -1;
  const where = blocked === stateRoot ? "" : `: ${blocked} in it is not`;
  const readOnly = code === "EROFS" ? " (a read-only file system)" : "";
  return new SystemError(
    "E_STATE_ROOT_NOT_WRITABLE",
    `the state root ${stateRoot} is not writable by uid ${uid} (gid ${gid})${where}: ${code}${readOnly}`,
    {
      suggestion:
        code === "EROFS"
          ? "mount the state root read-write, or choose another with --state-root or GOONDAN_STATE_ROOT"
          : `make it writable by uid ${uid}: chown -R ${uid}:${gid} the directory (on the host, the one mounted there; the container image runs as uid ${IMAGE_UID}), or run as the directory's owner (docker run --user <uid>:<gid>), or choose another state root with --state-root or GOONDAN_STATE_ROOT`,
      cause: options.cause,
    },
  );
}
