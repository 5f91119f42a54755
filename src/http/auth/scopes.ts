/**
 * The scopes a credential of the HTTP API holds (docs/http-api.md#credentials): `read` (every GET: processes,
 * instances, conversations, approvals, traces, metrics), `operate` (send events, chat, restart, run schedules),
 * `approve` (decide held tool calls and send signals) and `admin` (everything, and minting studio login codes).
 * `operate` and `approve` each include `read`; `admin` includes them all. `operate` does not include `approve`:
 * a credential that drives agents cannot decide what they asked to be held for a person.
 */
export const SCOPES = ["read", "operate", "approve", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: unknown): value is Scope => (SCOPES as readonly unknown[]).includes(value);

/** What each held scope also grants. */
const INCLUDES: Record<Scope, readonly Scope[]> = {
  read: ["read"],
  operate: ["operate", "read"],
  approve: ["approve", "read"],
  admin: ["admin", "operate", "approve", "read"],
};

/** Whether holding `held` allows what `needed` guards. */
export function grants(held: readonly Scope[], needed: Scope): boolean {
  return held.some((scope) => INCLUDES[scope].includes(needed));
}
