/** Id generation: sortable, prefixed ids for events, turns and spans. Injectable where tests need stable ids. */
import { randomBytes } from "node:crypto";

export type IdGenerator = (prefix: string) => string;

let counter = 0;

export const newId: IdGenerator = (prefix) => {
  counter = (counter + 1) % 0xffffff;
  return `${prefix}_${Date.now().toString(36)}${counter.toString(36).padStart(5, "0")}${randomBytes(4).toString("hex")}`;
};

/** A 32-hex trace id and a 16-hex span id, as in W3C trace context. */
export const newTraceId = (): string => randomBytes(16).toString("hex");
export const newSpanId = (): string => randomBytes(8).toString("hex");
