/**
 * An argv prefix that starts one long-lived process in a sandbox of its own (sandbox-profile.ts says what it
 * withholds), with no holder: the process becomes the namespace's pid 1, ends with the namespace (and with its
 * parent: parent-death signal), and keeps the environment, the file descriptors (its IPC channel) and the stdio it
 * was given. Connector children run this way without capabilities; an agent process (`nested`) too, but in a user
 * namespace of its own even as root, where it keeps what it needs to build the sandboxes of its bash commands and
 * MCP servers, while the hidden state root stays locked (mounts made in an outer user namespace cannot be undone
 * from an inner one). Its working directory is entered again once the state root is hidden, so a directory it was
 * started in under the state root shows what the sandbox shows (the kept path, or nothing: then /).
 */
import {
  legacy,
  outerArgv,
  SANDBOX_NAME,
  SETUP_SCRIPT,
  setupEnv,
  type SandboxHelpers,
  type SandboxProfile,
} from "./sandbox-profile.ts";

/** `value` as one word for /bin/sh. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** Re-enter the working directory through the new mounts: the old one may lie under the covered state root. */
const REENTER = 'cd "$PWD" 2>/dev/null || cd /';

export function launcherArgv(options: { helpers: SandboxHelpers; root: boolean; profile: SandboxProfile }): string[] {
  const { helpers, root, profile } = options;
  const net = (profile.network ?? "none") === "none" ? ["--net"] : [];
  const assignments = Object.entries(setupEnv({ root, profile })).map(
    ([name, value]) => `${name}=${shellQuote(value)}`,
  );
  const script = [...assignments, SETUP_SCRIPT, REENTER, 'exec "$@"'].join("\n");
  const nested = profile.nested === true;
  const drop =
    root && !nested
      ? [helpers.setpriv, "--no-new-privs", "--bounding-set", "-all", "--"]
      : [helpers.setpriv, "--no-new-privs", "--"];
  const pidNamespace = ["--pid", "--fork", "--mount-proc", "--propagation", "slave", "--kill-child"];
  const parentDeath = [helpers.setpriv, "--pdeathsig", "KILL"];
  if (root && !nested)
    return [
      ...parentDeath,
      helpers.unshare,
      ...net,
      ...pidNamespace,
      "--",
      helpers.shell,
      "-c",
      script,
      SANDBOX_NAME,
      ...drop,
    ];
  if (legacy(options)) {
    const user = ["--user", "--map-current-user"];
    return [...parentDeath, helpers.unshare, ...user, ...net, ...pidNamespace, "--", ...drop];
  }
  const uid = String(process.getuid?.() ?? 0);
  const gid = String(process.getgid?.() ?? 0);
  return [
    ...parentDeath,
    ...outerArgv(helpers, script),
    helpers.unshare,
    "--user",
    // As root, root again (old unshares know no --map-user); else the user we are.
    ...(root ? ["--map-root-user"] : [`--map-user=${uid}`, `--map-group=${gid}`]),
    ...net,
    ...pidNamespace,
    "--",
    ...drop,
  ];
}
