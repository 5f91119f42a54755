/**
 * Who the request being served acts as, for code that runs on its behalf without hono's context (the A2A
 * executor deciding approvals): the authenticate middleware runs the rest of the request inside `actingAs`.
 * Undefined when the API runs without credentials (`GOONDAN_API_AUTH=off`, or an app built without any).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Principal } from "./credential.ts";

const storage = new AsyncLocalStorage<{ principal: Principal | undefined }>();

export function actingAs<T>(principal: Principal | undefined, run: () => T): T {
  return storage.run({ principal }, run);
}

export function requestPrincipal(): Principal | undefined {
  return storage.getStore()?.principal;
}
