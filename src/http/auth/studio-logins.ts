/**
 * How the studio logs in without a token in its address (as Jupyter does): `goondan run` prints a one-time login
 * link, `/login?token=<code>`; opening it spends the code and sets an HttpOnly, SameSite=Strict session cookie acting
 * as the credential the code was made for. A code is spent on first use and lapses after CODE_TTL_MS unused;
 * sessions live in memory (a restart prints a new link) and lapse after SESSION_TTL_MS. `POST /v1/login-codes` makes
 * a new code for the caller's own credential (`goondan login` prints it as a link). Codes are never logged: the run
 * log lies in the state root, which tool calls may read.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Principal } from "./credential.ts";

export const CODE_TTL_MS = 24 * 60 * 60 * 1000;
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Bounds memory whatever a caller mints. */
const MAX_ENTRIES = 1000;

const key = (secret: string): string => createHash("sha256").update(secret).digest("base64url");

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/** The cookie's name: per port, since browsers share cookies across the ports of one host. */
export const sessionCookieName = (port: string): string => `goondan_session_${port || "80"}`;

export class StudioLogins {
  private readonly codes = new Map<string, Entry>();
  private readonly sessions = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time code that logs in as `principal`. */
  mint(principal: Principal): string {
    const code = randomBytes(24).toString("base64url");
    remember(this.codes, key(code), { principal, expiresAt: this.now() + CODE_TTL_MS });
    return code;
  }

  /** Spends the code: a new session id, or undefined when the code is unknown, spent or lapsed. */
  redeem(code: string): string | undefined {
    const found = this.codes.get(key(code));
    this.codes.delete(key(code));
    if (found === undefined || found.expiresAt <= this.now()) return undefined;
    const session = randomBytes(32).toString("base64url");
    remember(this.sessions, key(session), { principal: found.principal, expiresAt: this.now() + SESSION_TTL_MS });
    return session;
  }

  /** Who the session acts as, while it lives. */
  session(id: string): Principal | undefined {
    const found = this.sessions.get(key(id));
    if (found === undefined) return undefined;
    if (found.expiresAt > this.now()) return found.principal;
    this.sessions.delete(key(id));
    return undefined;
  }
}

function remember(map: Map<string, Entry>, id: string, entry: Entry): void {
  if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string);
  map.set(id, entry);
}
