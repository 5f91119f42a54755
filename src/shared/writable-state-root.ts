/**
 * The check that a state root can be written before goondan writes to it: the directory is created if need be,
 * and a probe file is created and removed in it (what really decides, where permission bits, ACLs, read-only
 * mounts and root's privileges all play). A state root this process cannot write (a root-owned bind mount in a
 * container, a read-only volume) is `E_STATE_ROOT_NOT_WRITABLE`, naming the path, the uid and gid that tried, and
 * how to fix it, instead of a bare EACCES from whichever file happened to come first.
 */
import { closeSync, mkdirSync, openSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, SystemError } from "./errors.ts";

/** The uid the container image runs as (Dockerfile `USER 10001:10001`). */
export const IMAGE_UID = 10001;

export function ensureWritableStateRoot(options: {
  stateRoot: string;
  /** Default: this process's uid and gid. */
  uid?: number;
  gid?: number;
}): void {
  const { stateRoot } = options;
  const probe = join(stateRoot, `.write-check-${process.pid}`);
  try {
    mkdirSync(stateRoot, { recursive: true });
    closeSync(openSync(probe, "wx"));
    unlinkSync(probe);
  } catch (error) {
    const code = describe(error).code;
    if (code !== "EACCES" && code !== "EPERM" && code !== "EROFS") throw error;
    const uid = options.uid ?? process.getuid?.() ?? -1;
    const gid = options.gid ?? process.getgid?.() ?? -1;
    throw new SystemError(
      "E_STATE_ROOT_NOT_WRITABLE",
      `the state root ${stateRoot} is not writable by uid ${uid} (gid ${gid}): ${code}${code === "EROFS" ? " (a read-only file system)" : ""}`,
      {
        suggestion:
          code === "EROFS"
            ? "mount the state root read-write, or choose another with --state-root or GOONDAN_STATE_ROOT"
            : `make it writable by uid ${uid}: chown -R ${uid}:${gid} the directory (on the host, the one mounted there; the container image runs as uid ${IMAGE_UID}), or run as the directory's owner (docker run --user <uid>:<gid>), or choose another state root with --state-root or GOONDAN_STATE_ROOT`,
        cause: error,
      },
    );
  }
}
