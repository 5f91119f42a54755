/**
 * Slack's request signing (https://api.slack.com/authentication/verifying-requests-from-slack): the
 * `X-Slack-Signature` header is `v0=` + HMAC-SHA256 (keyed with the app's signing secret) of
 * `v0:<X-Slack-Request-Timestamp>:<raw body>`; requests older than five minutes are refused (replays).
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SLACK_MAX_AGE_SECONDS = 5 * 60;

export type SlackSignatureCheck = { ok: true } | { ok: false; reason: string };

export function verifySlackSignature(options: {
  body: Uint8Array | string;
  secret: string;
  signature: string | null;
  timestamp: string | null;
  nowSeconds: number;
}): SlackSignatureCheck {
  const { signature, timestamp } = options;
  if (!signature || !timestamp) return { ok: false, reason: "missing X-Slack-Signature or X-Slack-Request-Timestamp" };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: "X-Slack-Request-Timestamp is not a number" };
  if (Math.abs(options.nowSeconds - Number(timestamp)) > SLACK_MAX_AGE_SECONDS)
    return { ok: false, reason: "the request timestamp is more than five minutes away (a replay?)" };
  const match = /^v0=([0-9a-f]{64})$/.exec(signature.trim());
  if (!match?.[1]) return { ok: false, reason: "X-Slack-Signature must be v0=<64 hex digits>" };
  const body = typeof options.body === "string" ? Buffer.from(options.body) : Buffer.from(options.body);
  const expected = createHmac("sha256", options.secret)
    .update(Buffer.concat([Buffer.from(`v0:${timestamp}:`), body]))
    .digest();
  return timingSafeEqual(expected, Buffer.from(match[1], "hex"))
    ? { ok: true }
    : { ok: false, reason: "the signature does not match the body" };
}
