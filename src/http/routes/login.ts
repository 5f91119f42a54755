/**
 * The studio's login (auth/studio-logins.ts): `GET /login?token=<one-time code>` spends the code, sets the session
 * cookie (HttpOnly, SameSite=Strict, path /) and answers `303` to the studio at `/`, so the code leaves the address
 * bar at once; a code unknown, spent or lapsed is `401 E_API_LOGIN_INVALID`. `POST /v1/login-codes` (any
 * credential) answers `201 {code, path}`: a new one-time code that logs in as the caller's own credential
 * (`goondan login` prints it as a link). Without credentials (`GOONDAN_API_AUTH=off`) there is nothing to log in to:
 * `/login` goes straight to the studio and minting is `409 E_API_AUTH_OFF`.
 */
import { Hono } from "hono";
import { setCookie } from "hono/cookie";
import { validator } from "hono/validator";
import { ApiError } from "../api-error.ts";
import type { ApiEnv } from "../api-env.ts";
import { SESSION_TTL_MS, sessionCookieName, type StudioLogins } from "../auth/studio-logins.ts";
import { requestSchema } from "../request-schema.ts";
import { noQuery } from "./no-query.ts";

const loginQuery = requestSchema<{ token: string }>({
  route: "GET /login",
  part: "query",
  schema: {
    type: "object",
    required: ["token"],
    additionalProperties: false,
    properties: { token: { type: "string", minLength: 1, maxLength: 200, pattern: "^[A-Za-z0-9_-]+$" } },
  },
});

export function loginRoutes(options: { logins: StudioLogins; authOn: boolean }): Hono<ApiEnv> {
  const { logins, authOn } = options;
  return new Hono<ApiEnv>()
    .get(
      "/login",
      validator("query", (value) => loginQuery(value)),
      (c) => {
        if (!authOn) return c.redirect("/", 303);
        const session = logins.redeem(c.req.valid("query").token);
        if (session === undefined)
          throw new ApiError({
            status: 401,
            code: "E_API_LOGIN_INVALID",
            message: "this login link is unknown, was used already, or has lapsed; a link logs in once",
            suggestion: "run goondan login for a new link, or restart goondan run to print one",
          });
        setCookie(c, sessionCookieName(new URL(c.req.url).port), session, {
          httpOnly: true,
          sameSite: "Strict",
          path: "/",
          maxAge: Math.floor(SESSION_TTL_MS / 1000),
        });
        c.header("cache-control", "no-store");
        c.header("referrer-policy", "no-referrer");
        return c.redirect("/", 303);
      },
    )
    .post("/v1/login-codes", noQuery("POST /v1/login-codes"), (c) => {
      const principal = c.get("principal");
      if (principal === undefined)
        throw new ApiError({
          status: 409,
          code: "E_API_AUTH_OFF",
          message: "the API runs without credentials (GOONDAN_API_AUTH=off): the studio needs no login",
        });
      const code = logins.mint(principal);
      return c.json({ code, path: `/login?token=${code}`, credential: principal.name }, 201);
    });
}
