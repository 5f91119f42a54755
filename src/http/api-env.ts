/**
 * The types every route and middleware of the HTTP API shares through hono's context: the bindings of the
 * request being served (a long `wait` must outlive the server's idle timeout) and the variables middleware sets
 * for the route (the checked JSON body).
 */
import type { Principal } from "./auth/credential.ts";

/** What Bun.serve hands the handler with each request (its server); absent when a test calls the handler directly. */
export interface RequestTimeouts {
  timeout(request: Request, seconds: number): void;
  requestIP?(request: Request): { address: string } | null;
}

export interface ApiBindings {
  /** Lets this request's connection stay idle as long as the answer takes. */
  keepOpen(): void;
  /** The client's IP address, when Bun served the request (absent in-process). */
  clientAddress?(): string | undefined;
}

export interface ApiEnv {
  Bindings: ApiBindings;
  /**
   * `body`: the JSON body, as the route's schema checked it (json-body.ts); `principal`: the credential the request
   * acts as (authenticate.ts), absent when the API runs without credentials.
   */
  Variables: { body: unknown; principal?: Principal };
}
