/**
 * The API token `goondan run` makes when the operator configures none: one per state root, in
 * `<stateRoot>/api-token` (mode 0600, created exclusively so two starts agree on one), kept across restarts. It is
 * the credential `local` with scope `admin`; operator commands (`goondan ps`, `approve`, ...) read it from the same
 * state root, so they work without setting anything. A tool call cannot read it: the bash sandbox hides it
 * (docs/threat-model.md).
 */
import { randomBytes } from "node:crypto";
import { chmodSync, linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SystemError } from "../../shared/errors.ts";
import type { Credential } from "./credential.ts";

export const STATE_ROOT_TOKEN_FILE = "api-token";
/** The credential the generated token is. */
export const LOCAL_CREDENTIAL_NAME = "local";

export function stateRootTokenPath(stateRoot: string): string {
  return join(stateRoot, STATE_ROOT_TOKEN_FILE);
}

/** The state root's token, or undefined when it has none (or it cannot be read). */
export function readStateRootToken(stateRoot: string): string | undefined {
  try {
    const token = readFileSync(stateRootTokenPath(stateRoot), "utf8").trim();
    return token === "" ? undefined : token;
  } catch {
    return undefined;
  }
}

/** The state root's token as the credential `local`, made first when there is none. */
export function ensureStateRootCredential(stateRoot: string): Credential {
  const file = stateRootTokenPath(stateRoot);
  const existing = readStateRootToken(stateRoot);
  if (existing !== undefined) {
    chmodSync(file, 0o600);
    return { name: LOCAL_CREDENTIAL_NAME, token: existing, scopes: ["admin"] };
  }
  // Written whole to a private temp file, then linked into place: link fails if another start won, and a reader
  // never sees a half-written token.
  const token = randomBytes(32).toString("base64url");
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${token}\n`, { mode: 0o600, flag: "w" });
    chmodSync(temp, 0o600);
    linkSync(temp, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const raced = code === "EEXIST" ? readStateRootToken(stateRoot) : undefined;
    if (raced !== undefined) return { name: LOCAL_CREDENTIAL_NAME, token: raced, scopes: ["admin"] };
    throw new SystemError("E_API_TOKEN_FILE", `cannot create ${file} (${code ?? String(error)})`, {
      suggestion: "make the state root writable, or set GOONDAN_API_TOKEN",
    });
  } finally {
    rmSync(temp, { force: true });
  }
  return { name: LOCAL_CREDENTIAL_NAME, token, scopes: ["admin"] };
}
