/**
 * What a sandbox (pid-namespace-sandbox.ts) lets its processes have, and the shell scripts and argv that set it
 * up: the network (`none`: a network namespace of its own, holding only its own loopback, so neither the daemon's
 * API on 127.0.0.1 nor NATS nor anything else on the machine's loopback is in reach; `host`: the machine's), the
 * capabilities of a command run as root (`container`: the set Docker gives a container's root, less mknod, for
 * `bash`; `none`: none at all, and no new privileges, for MCP servers), and a directory hidden under an empty
 * read-only tmpfs (the state root, with goondan.db and the API token) with the paths under it that stay in view
 * (bash: the instance's workdir; an agent process: its instances' directory, writable, and the files it loads
 * at start, read-only).
 */
import { relative } from "node:path";

export type SandboxNetwork = "none" | "host";
export type SandboxCapabilities = "container" | "none";

export interface SandboxProfile {
  /** Default "none": own network namespace, loopback only. */
  network?: SandboxNetwork;
  /** Default "container" (what `bash` has always had); "none" for MCP servers. */
  capabilities?: SandboxCapabilities;
  /** An absolute directory hidden under an empty read-only tmpfs (default none hidden). */
  hide?: string;
  /** Absolute paths under `hide` that stay in view, writable as before (each must exist). */
  keep?: string | readonly string[];
  /** Absolute paths under `hide` that stay in view read-only (each must exist). */
  readOnly?: readonly string[];
  /**
   * The process builds sandboxes of its own (an agent process: bash, MCP servers). It then runs in a user namespace
   * of its own also as root, root there, so that it keeps what building them takes while the hidden directory stays
   * locked (launcherArgv in sandbox-launcher.ts).
   */
  nested?: boolean;
}

/** Docker's default capabilities for a container's root, less mknod. */
const CONTAINER_CAPABILITIES =
  "-all,+chown,+dac_override,+fowner,+fsetid,+kill,+setgid,+setuid,+setpcap,+setfcap,+net_bind_service,+net_raw,+sys_chroot,+audit_write";

export const SANDBOX_NAME = "goondan-sandbox";

/**
 * Run with the namespace's privileges before anything enters: the loopback up (where `ip` exists), the hidden
 * directory covered (opened first on fd 4; each kept path, relative to it, is bound back from /proc/self/fd/4/...
 * without letting mount(8) canonicalize that path into the tmpfs). Any failure stops the sandbox with its reason.
 */
export const SETUP_SCRIPT = [
  'fail() { echo "$1" >&2; exit 1; }',
  'if [ -n "$GOONDAN_SANDBOX_LOOPBACK" ] && command -v ip >/dev/null 2>&1; then ip link set lo up 2>/dev/null; fi',
  'if [ -n "$GOONDAN_SANDBOX_HIDE" ]; then',
  '  exec 4<"$GOONDAN_SANDBOX_HIDE" || fail "cannot open $GOONDAN_SANDBOX_HIDE"',
  '  mount -t tmpfs -o mode=0755,size=64k,nosuid,nodev,noexec goondan-hidden "$GOONDAN_SANDBOX_HIDE" || fail "cannot hide $GOONDAN_SANDBOX_HIDE"',
  // One mkdir for every mount point (a file's parent; the file itself by the shell), then one mount for each.
  "  set -f; IFS='",
  "'",
  "  points() {",
  "    set --",
  "    for rel in $GOONDAN_SANDBOX_KEEP $GOONDAN_SANDBOX_READ; do",
  '      if [ -d "/proc/self/fd/4/$rel" ]; then set -- "$@" "$GOONDAN_SANDBOX_HIDE/$rel"; else to="$GOONDAN_SANDBOX_HIDE/$rel"; set -- "$@" "${to%/*}"; fi',
  "    done",
  '    [ "$#" -eq 0 ] || mkdir -p "$@" || fail "cannot keep $* in view"',
  "    for rel in $GOONDAN_SANDBOX_KEEP $GOONDAN_SANDBOX_READ; do",
  '      [ -d "/proc/self/fd/4/$rel" ] || : >"$GOONDAN_SANDBOX_HIDE/$rel" || fail "cannot keep $rel in view"',
  "    done",
  "  }",
  "  points",
  "  for rel in $GOONDAN_SANDBOX_KEEP; do",
  '    mount --no-canonicalize --bind "/proc/self/fd/4/$rel" "$GOONDAN_SANDBOX_HIDE/$rel" || fail "cannot keep $rel in view"',
  "  done",
  "  for rel in $GOONDAN_SANDBOX_READ; do",
  '    mount --no-canonicalize --bind -o ro "/proc/self/fd/4/$rel" "$GOONDAN_SANDBOX_HIDE/$rel" || fail "cannot keep $rel in view read-only"',
  "  done",
  "  unset IFS; set +f",
  "  exec 4<&-",
  '  mount -o remount,ro,nosuid,nodev,noexec goondan-hidden "$GOONDAN_SANDBOX_HIDE" || fail "cannot make $GOONDAN_SANDBOX_HIDE read-only"',
  "fi",
].join("\n");

/** pid 1 of the namespace: reap orphans; stop on SIGTERM or when the agent's end of stdin closes. */
export const INIT_SCRIPT = [
  "trap 'exit 0' TERM",
  "exec 3<&0 </dev/null",
  "(read -r _ <&3; kill -TERM 1) 3<&3 &",
  "exec 3<&-",
  "echo ready",
  "exec >/dev/null 2>&1",
  "while :; do sleep 2147483647 & wait; done",
].join("\n");

export interface SandboxHelpers {
  unshare: string;
  nsenter: string;
  setpriv: string;
  env: string;
  shell: string;
  /** Whether this unshare knows --map-user (util-linux 2.38+), which the non-root state-root hiding needs. */
  mapUser: boolean;
}

/**
 * Without root and with an unshare older than 2.38 (no --map-user), one user namespace as before: the same
 * namespaces, but the state root cannot be hidden, and `describeProfile` says so.
 */
/**
 * The outer layer of every sandbox but the legacy one: a user namespace that maps us to root and a mount namespace
 * of its own, in which `script` (the setup: the state root covered, the kept paths bound back) runs first and then
 * `exec`s its arguments, the sandbox proper.
 */
export function outerArgv(helpers: SandboxHelpers, script: string): string[] {
  return [
    helpers.unshare,
    "--user",
    "--map-root-user",
    "--mount",
    "--propagation",
    "slave",
    "--",
    helpers.shell,
    "-c",
    script,
    SANDBOX_NAME,
  ];
}

export function legacy(options: { helpers: SandboxHelpers; root: boolean }): boolean {
  return !options.root && !options.helpers.mapUser;
}

/**
 * The variables the setup script reads, from the profile. Without root the network namespace belongs to the inner
 * user namespace (so that nsenter, once in it, may enter it), where no one is privileged to bring its loopback up.
 */
export function setupEnv(options: { root: boolean; profile: SandboxProfile }): Record<string, string> {
  const { root, profile } = options;
  const env: Record<string, string> = {};
  if (root && (profile.network ?? "none") === "none") env.GOONDAN_SANDBOX_LOOPBACK = "1";
  if (profile.hide === undefined) return env;
  env.GOONDAN_SANDBOX_HIDE = profile.hide;
  const keep = under(profile.hide, typeof profile.keep === "string" ? [profile.keep] : (profile.keep ?? []));
  const read = under(profile.hide, profile.readOnly ?? []);
  if (keep.length > 0) env.GOONDAN_SANDBOX_KEEP = keep.join("\n");
  if (read.length > 0) env.GOONDAN_SANDBOX_READ = read.join("\n");
  return env;
}

/**
 * `paths` that lie under `hide`, relative to it (the setup binds each from the covered directory). One outside
 * stays in view anyway; one holding a newline is never kept (the setup reads one path a line).
 */
function under(hide: string, paths: readonly string[]): string[] {
  const result: string[] = [];
  for (const path of paths) {
    const rel = relative(hide, path);
    if (rel === "" || rel === ".." || rel.startsWith("../") || rel.startsWith("/") || rel.includes("\n")) continue;
    if (!result.includes(rel)) result.push(rel);
  }
  return result;
}

/**
 * The holder's argv. As root: one `unshare` (pid, mount, maybe net) whose pid 1 runs the setup then the init loop.
 * Otherwise two: an outer user namespace in which we are root sets up the mount (and net) namespace, then an inner
 * one (with the network namespace) maps us back to our own uid with no capabilities, so the tmpfs is locked (no
 * one inside can unmount it) and commands run as the user they always ran as.
 */
export function holderArgv(options: { helpers: SandboxHelpers; root: boolean; profile: SandboxProfile }): string[] {
  const { helpers, root, profile } = options;
  const net = (profile.network ?? "none") === "none" ? ["--net"] : [];
  const init = [helpers.shell, "-c", `${SETUP_SCRIPT}\n${INIT_SCRIPT}`, SANDBOX_NAME];
  const pidNamespace = ["--pid", "--fork", "--mount-proc", "--propagation", "slave", "--kill-child"];
  if (root) return [helpers.setpriv, "--pdeathsig", "KILL", helpers.unshare, ...net, ...pidNamespace, "--", ...init];
  if (legacy(options)) {
    const user = ["--user", "--map-current-user"];
    return [
      helpers.setpriv,
      "--pdeathsig",
      "KILL",
      helpers.unshare,
      ...user,
      ...net,
      ...pidNamespace,
      "--",
      helpers.shell,
      "-c",
      INIT_SCRIPT,
      SANDBOX_NAME,
    ];
  }
  const uid = String(process.getuid?.() ?? 0);
  const gid = String(process.getgid?.() ?? 0);
  const inner = [helpers.unshare, "--user", `--map-user=${uid}`, `--map-group=${gid}`, ...net, ...pidNamespace, "--"];
  const outerScript = `${SETUP_SCRIPT}\nexec "$@"`;
  return [
    helpers.setpriv,
    "--pdeathsig",
    "KILL",
    ...outerArgv(helpers, outerScript),
    ...inner,
    helpers.shell,
    "-c",
    INIT_SCRIPT,
    SANDBOX_NAME,
  ];
}

/** The argv that runs `argv` inside the holder `pid`'s namespaces with exactly `env`, in `cwd`. */
export function enterArgv(options: {
  helpers: SandboxHelpers;
  root: boolean;
  pid: number;
  profile: SandboxProfile;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The variables come in the process's own environment: `env -i` is left out. */
  passEnvironment?: boolean;
}): string[] {
  const { helpers, root, pid, profile } = options;
  const variables = Object.entries(options.env).map(([name, value]) => `${name}=${value}`);
  const environment = options.passEnvironment === true ? [] : [helpers.env, "-i", ...variables];
  const bare = (profile.capabilities ?? "container") === "none";
  const privileges = root
    ? [helpers.setpriv, ...(bare ? ["--no-new-privs"] : []), "--bounding-set", bare ? "-all" : CONTAINER_CAPABILITIES]
    : bare
      ? [helpers.setpriv, "--no-new-privs"]
      : [];
  return [
    helpers.nsenter,
    `--target=${pid}`,
    ...(root ? [] : ["--user", "--preserve-credentials"]),
    "--mount",
    ...((profile.network ?? "none") === "none" ? ["--net"] : []),
    `--pid=/proc/${pid}/ns/pid_for_children`,
    `--wd=${options.cwd}`,
    "--",
    ...(privileges.length > 0 ? [...privileges, "--"] : []),
    ...environment,
    // A command path holding "=" would read as a variable to env: hand argv to a shell that execs it.
    helpers.shell,
    "-c",
    'exec "$@"',
    SANDBOX_NAME,
    ...options.argv,
  ];
}

export function describeProfile(options: { helpers: SandboxHelpers; root: boolean; profile: SandboxProfile }): string {
  const { root, profile } = options;
  const parts = [
    "own PID namespace",
    root && profile.nested === true
      ? "root in a user namespace of its own"
      : root
        ? (profile.capabilities ?? "container") === "none"
          ? "root without capabilities"
          : "root, reduced capabilities"
        : "user namespace, no capabilities",
    (profile.network ?? "none") === "none" ? `no network (own loopback${root ? "" : ", down"} only)` : "host network",
  ];
  if (profile.hide !== undefined && legacy(options))
    parts.push(`${profile.hide} NOT hidden (unshare lacks --map-user: util-linux 2.38 or later, or root, hides it)`);
  else if (profile.hide !== undefined) parts.push(`${profile.hide} hidden${keptWords(profile)}`);
  return parts.join(", ");
}

/** What stays in view of a hidden directory, in words. */
function keptWords(profile: SandboxProfile): string {
  if (profile.keep === undefined) return "";
  if (typeof profile.keep === "string") return " but the workdir";
  return (profile.readOnly ?? []).length > 0
    ? " but the instances' files and, read-only, what the process loads"
    : " but the instances' files";
}
