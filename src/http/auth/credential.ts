/**
 * A named credential of the HTTP API: its name (what approvals record as their approver and what `approvers`
 * lists), its secret token, and its scopes (scopes.ts). A CredentialSet finds the credential a presented token
 * belongs to, comparing in constant time over digests so neither a token's content nor its length leaks through
 * timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Scope } from "./scopes.ts";

export interface Credential {
  name: string;
  token: string;
  scopes: readonly Scope[];
}

/** What a request acts as, once authenticated: the credential without its secret. */
export interface Principal {
  name: string;
  scopes: readonly Scope[];
}

const digest = (value: string): Buffer => createHash("sha256").update(value).digest();

export class CredentialSet {
  private readonly entries: ReadonlyArray<{ digest: Buffer; principal: Principal }>;

  constructor(readonly credentials: readonly Credential[]) {
    this.entries = credentials.map((credential) => ({
      digest: digest(credential.token),
      principal: { name: credential.name, scopes: credential.scopes },
    }));
  }

  get size(): number {
    return this.entries.length;
  }

  /** The credential this token belongs to; every entry is compared, so the time does not tell which matched. */
  find(token: string): Principal | undefined {
    if (token === "") return undefined;
    const presented = digest(token);
    let found: Principal | undefined;
    for (const entry of this.entries) if (timingSafeEqual(presented, entry.digest)) found ??= entry.principal;
    return found;
  }

  named(name: string): Credential | undefined {
    return this.credentials.find((credential) => credential.name === name);
  }
}
