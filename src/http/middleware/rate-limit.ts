/**
 * The HTTP API's rate limits (auth/rate-limits.ts): `byAddress` runs before authentication, so a flood of wrong
 * tokens is limited too; `byCredential` after it. Over a limit: `429 E_API_RATE_LIMITED` with `Retry-After`
 * (seconds). Loopback clients and requests without a known address (in-process calls) are not counted unless the
 * settings say `loopback`.
 */
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { RateBuckets, type Rate, type RateLimitSettings } from "../auth/rate-limits.ts";
import { isLoopbackHost } from "../bound-address.ts";

function limited(what: string, rate: Rate, retryAfter: number): ApiError {
  return new ApiError({
    status: 429,
    code: "E_API_RATE_LIMITED",
    message: `too many requests from this ${what}: at most ${rate.requests} per ${rate.seconds} s`,
    suggestion: `retry after ${retryAfter} s; the limits are set by GOONDAN_API_RATE_LIMIT_* (docs/limits.md)`,
    headers: { "retry-after": String(retryAfter) },
  });
}

const noop: MiddlewareHandler<ApiEnv> = async (_c, next) => next();

export function rateLimits(settings: RateLimitSettings | undefined): {
  byAddress: MiddlewareHandler<ApiEnv>;
  byCredential: MiddlewareHandler<ApiEnv>;
} {
  const counted = (address: string | undefined): address is string =>
    address !== undefined && (settings?.loopback === true || !isLoopbackHost(address.replace(/^::ffff:/, "")));
  const addressRate = settings?.perAddress;
  const credentialRate = settings?.perCredential;
  const addresses = addressRate ? new RateBuckets(addressRate) : undefined;
  const credentials = credentialRate ? new RateBuckets(credentialRate) : undefined;
  return {
    byAddress:
      addresses && addressRate
        ? async (c, next) => {
            const address = c.env?.clientAddress?.();
            const wait = counted(address) ? addresses.take(address) : 0;
            if (wait > 0) throw limited("address", addressRate, wait);
            await next();
          }
        : noop,
    byCredential:
      credentials && credentialRate
        ? async (c, next) => {
            const principal = c.get("principal");
            const wait =
              principal !== undefined && counted(c.env?.clientAddress?.()) ? credentials.take(principal.name) : 0;
            if (wait > 0) throw limited("credential", credentialRate, wait);
            await next();
          }
        : noop,
  };
}
