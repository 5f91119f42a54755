/**
 * The environment a shell command gets: an allowlist of harmless basics (PATH, HOME, locale, terminal,
 * time zone, temp dir, user), and never anything whose name looks secret (*KEY*, *TOKEN*, *SECRET*,
 * *PASSWORD*, *CREDENTIAL*, GOONDAN_SECRET_*), even if it were allowlisted.
 */
const ALLOWED = [
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "TERM",
  "TZ",
  "TMPDIR",
  "USER",
  "LOGNAME",
  "SHELL",
];
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|^GOONDAN_SECRET_/i;
const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function scrubbedEnv(source: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ALLOWED) {
    const value = source[name];
    if (typeof value === "string" && !isSecretName(name)) env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  env.TERM ??= "dumb";
  env.LANG ??= "C.UTF-8";
  return env;
}
