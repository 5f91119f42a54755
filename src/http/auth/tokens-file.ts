/**
 * The named credentials an operator configures: a tokens file (`--tokens-file` of `goondan run`, or
 * `GOONDAN_API_TOKENS_FILE`), YAML or JSON,
 *
 *     credentials:
 *       - { name: alice, token: <at least 16 characters>, scopes: [approve] }
 *       - { name: ci, token: <...>, scopes: [operate] }
 *
 * or the same text in the environment, `GOONDAN_SECRET_API_TOKENS` (a `GOONDAN_SECRET_*` name, so it never reaches
 * an agent or connector process), and `GOONDAN_API_TOKEN`, the single token of before, which is the credential
 * `operator` with scope `admin`.
 * Names are 1–64 of `A-Za-z0-9._-` and unique, tokens unique; anything else is `E_API_TOKENS_INVALID` naming the
 * file, the entry and what was expected.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { UsageError } from "../../shared/errors.ts";
import type { Credential } from "./credential.ts";
import { isScope, SCOPES, type Scope } from "./scopes.ts";

/** The credential `GOONDAN_API_TOKEN` is. */
export const ENV_CREDENTIAL_NAME = "operator";
const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const MIN_TOKEN_LENGTH = 16;

function invalid(where: string, message: string): UsageError {
  return new UsageError("E_API_TOKENS_INVALID", `${where}: ${message}`, {
    suggestion: "fix the tokens file; see docs/http-api.md#credentials",
  });
}

function entry(value: unknown, where: string): Credential {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalid(where, "expected an object {name, token, scopes}");
  const { name, token, scopes, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw invalid(where, `unknown field ${unknown[0]}; expected name, token, scopes`);
  if (typeof name !== "string" || !NAME.test(name))
    throw invalid(`${where}.name`, `expected 1-64 characters of A-Za-z0-9._-, got ${JSON.stringify(name)}`);
  if (typeof token !== "string" || token.trim().length < MIN_TOKEN_LENGTH || token.trim() !== token)
    throw invalid(`${where}.token`, `expected a secret of at least ${MIN_TOKEN_LENGTH} characters without spaces`);
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every(isScope))
    throw invalid(`${where}.scopes`, `expected a non-empty list of ${SCOPES.join(", ")}`);
  return { name, token, scopes: [...new Set(scopes as Scope[])] };
}

/** The credentials of a tokens file's text; `file` names it in errors. */
export function parseTokensFile(text: string, file: string): Credential[] {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw invalid(file, `not YAML or JSON (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`);
  }
  const list = (document as { credentials?: unknown } | null)?.credentials;
  if (!Array.isArray(list) || list.length === 0) throw invalid(file, "expected credentials: a non-empty list");
  return list.map((item, index) => entry(item, `${file} credentials[${index}]`));
}

/** Refuses two credentials with one name or one token. */
export function checkUnique(credentials: readonly Credential[], where: string): void {
  const names = new Set<string>();
  const tokens = new Set<string>();
  for (const credential of credentials) {
    if (names.has(credential.name)) throw invalid(where, `two credentials are named ${credential.name}`);
    if (tokens.has(credential.token)) throw invalid(where, `credential ${credential.name} reuses another's token`);
    names.add(credential.name);
    tokens.add(credential.token);
  }
}

/** The credentials the environment and the tokens file (`file`, else GOONDAN_API_TOKENS_FILE) configure. */
export function configuredCredentials(options: {
  env: Record<string, string | undefined>;
  file?: string;
}): Credential[] {
  const { env } = options;
  const credentials: Credential[] = [];
  const token = env.GOONDAN_API_TOKEN;
  if (token !== undefined && token !== "") {
    if (token.trim() === "")
      throw new UsageError("E_API_ACCESS_INVALID", "GOONDAN_API_TOKEN is blank (only whitespace)", {
        suggestion: "set a real token, or unset GOONDAN_API_TOKEN",
      });
    credentials.push({ name: ENV_CREDENTIAL_NAME, token, scopes: ["admin"] });
  }
  const file = options.file ?? (env.GOONDAN_API_TOKENS_FILE?.trim() || undefined);
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw invalid(file, `cannot read the tokens file (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    credentials.push(...parseTokensFile(text, file));
  }
  const inline = env.GOONDAN_SECRET_API_TOKENS;
  if (inline !== undefined && inline.trim() !== "")
    credentials.push(...parseTokensFile(inline, "GOONDAN_SECRET_API_TOKENS"));
  checkUnique(credentials, file ?? "the configured credentials");
  return credentials;
}
