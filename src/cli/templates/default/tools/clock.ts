/**
 * The `clock` tool of this bundle: `clock__now` returns the current time in UTC and, when asked,
 * in an IANA time zone. A tool module exports `handlers`, one function per export in goondan.yaml.
 */
import type { ToolHandler } from "goondan";

const now: ToolHandler = (_ctx, input) => {
  const date = new Date();
  const timeZone = typeof input.timeZone === "string" ? input.timeZone : undefined;
  return {
    utc: date.toISOString(),
    ...(timeZone ? { local: date.toLocaleString("en-GB", { timeZone, timeZoneName: "short" }), timeZone } : {}),
  };
};

export const handlers: Record<string, ToolHandler> = { now };
