/**
 * Who may use the API of one `goondan run`, from its environment and flags (docs/http-api.md#credentials): the
 * configured credentials (`GOONDAN_API_TOKEN`, the tokens file of `--tokens-file` or `GOONDAN_API_TOKENS_FILE`),
 * else the state root's generated token (state-root-token.ts); the credential the printed studio login link logs
 * in as (`GOONDAN_STUDIO_CREDENTIAL`, else `local`, else `operator`, else the first with scope admin); and the rate
 * limits. `GOONDAN_API_AUTH=off` runs the API without any credential, as goondan did before: every program that
 * reaches the port may do everything, tool calls included. Only on loopback, never with credentials configured.
 */
import { UsageError } from "../../shared/errors.ts";
import { requireTokenOffLoopback } from "../api-access.ts";
import { CredentialSet, type Principal } from "./credential.ts";
import { rateLimitsFromEnv, type RateLimitSettings } from "./rate-limits.ts";
import { ensureStateRootCredential, LOCAL_CREDENTIAL_NAME } from "./state-root-token.ts";
import { StudioLogins } from "./studio-logins.ts";
import { configuredCredentials, ENV_CREDENTIAL_NAME } from "./tokens-file.ts";

export interface ApiAuth {
  /** Absent with GOONDAN_API_AUTH=off. */
  credentials?: CredentialSet;
  logins: StudioLogins;
  /** Who the printed studio login link logs in as; absent when none fits. */
  studio?: Principal;
  rateLimits: RateLimitSettings;
  /** How many credentials the operator configured (a generated token is not one: it never opens a network address). */
  configured: number;
}

function studioPrincipal(credentials: CredentialSet, env: Record<string, string | undefined>): Principal | undefined {
  const wanted = env.GOONDAN_STUDIO_CREDENTIAL?.trim();
  const pick = wanted
    ? credentials.named(wanted)
    : (credentials.named(LOCAL_CREDENTIAL_NAME) ??
      credentials.named(ENV_CREDENTIAL_NAME) ??
      credentials.credentials.find((credential) => credential.scopes.includes("admin")));
  if (wanted && pick === undefined)
    throw new UsageError(
      "E_API_TOKENS_INVALID",
      `GOONDAN_STUDIO_CREDENTIAL names ${JSON.stringify(wanted)}, which no credential is`,
      {
        suggestion: `name one of ${credentials.credentials.map((credential) => credential.name).join(", ")}`,
      },
    );
  return pick === undefined ? undefined : { name: pick.name, scopes: pick.scopes };
}

/**
 * The API's auth for `goondan run` listening on `host`; beyond loopback without a configured credential it refuses
 * (`E_API_TOKEN_REQUIRED`) before any token is made.
 */
export function apiAuth(options: {
  env: Record<string, string | undefined>;
  stateRoot: string;
  host: string;
  tokensFile?: string;
}): ApiAuth {
  const { env } = options;
  const mode = env.GOONDAN_API_AUTH?.trim() ?? "";
  if (!["", "on", "off"].includes(mode))
    throw new UsageError("E_API_ACCESS_INVALID", `GOONDAN_API_AUTH: expected on or off, got ${JSON.stringify(mode)}`);
  const configured = configuredCredentials({
    env,
    ...(options.tokensFile === undefined ? {} : { file: options.tokensFile }),
  });
  const rateLimits = rateLimitsFromEnv(env);
  requireTokenOffLoopback({ host: options.host, credentials: configured.length });
  const logins = new StudioLogins();
  if (mode === "off") {
    if (configured.length > 0)
      throw new UsageError("E_API_ACCESS_INVALID", "GOONDAN_API_AUTH=off, yet credentials are configured", {
        suggestion: "unset GOONDAN_API_AUTH, or unset GOONDAN_API_TOKEN and the tokens file",
      });
    return { logins, rateLimits, configured: 0 };
  }
  const credentials = new CredentialSet(
    configured.length > 0 ? configured : [ensureStateRootCredential(options.stateRoot)],
  );
  const studio = studioPrincipal(credentials, env);
  return { credentials, logins, ...(studio ? { studio } : {}), rateLimits, configured: configured.length };
}
