/**
 * ObjectRef in its written forms ("Kind/name", {kind, name, package?}, {ref: …}) turned into the one
 * normalized ObjectRef, and printed back as "Kind/name".
 */
import { KINDS, type Kind, type ObjectRef } from "./types.ts";
import { isJsonObject } from "../shared/json.ts";

/** A ref as written, after unwrapping `{ref}`: kind not yet known to be valid. */
export interface WrittenRef {
  kind: string;
  name: string;
  package?: string;
}

/** Reads a schema-valid ObjectRef input; `undefined` when it has no recognizable shape. */
export function readRef(input: unknown): WrittenRef | undefined {
  if (typeof input === "string") {
    const slash = input.indexOf("/");
    if (slash <= 0 || slash !== input.lastIndexOf("/") || slash === input.length - 1) return undefined;
    return { kind: input.slice(0, slash), name: input.slice(slash + 1) };
  }
  if (!isJsonObject(input)) return undefined;
  if ("ref" in input) return readRef(input.ref);
  if (typeof input.kind !== "string" || typeof input.name !== "string") return undefined;
  return {
    kind: input.kind,
    name: input.name,
    ...(typeof input.package === "string" ? { package: input.package } : {}),
  };
}

export function isKind(value: string): value is Kind {
  return (KINDS as readonly string[]).includes(value);
}

export function formatRef(ref: WrittenRef | ObjectRef): string {
  return `${ref.package ? `${ref.package}:` : ""}${ref.kind}/${ref.name}`;
}
