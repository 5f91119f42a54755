/**
 * The webhook connector's signature check: `x-goondan-signature: sha256=<hex>` carries the
 * HMAC-SHA256 of the raw request body keyed with the Connection's secret, compared in constant time. The
 * bare hex digest (no `sha256=`) is accepted too, as the public Goondan webhook accepts it. GitHub's
 * `X-Hub-Signature-256` is the same scheme; the github connector uses this check too.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-goondan-signature";

/** The header value a sender puts on `body`: `sha256=<hex>`. */
export function signBody(options: { body: string | Uint8Array; secret: string }): string {
  return `sha256=${createHmac("sha256", options.secret).update(options.body).digest("hex")}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** `headerName` only names the header in reasons (GitHub sends the same scheme as X-Hub-Signature-256). */
export function verifySignature(options: {
  body: string | Uint8Array;
  secret: string;
  header: string | null | undefined;
  headerName?: string;
}): SignatureCheck {
  const { header } = options;
  const headerName = options.headerName ?? SIGNATURE_HEADER;
  if (!header) return { ok: false, reason: `missing ${headerName} header` };
  const match = /^(?:sha256=)?([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match?.[1]) return { ok: false, reason: `${headerName} must be sha256=<64 hex digits>` };
  const expected = createHmac("sha256", options.secret).update(options.body).digest();
  const given = Buffer.from(match[1], "hex");
  return timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: "signature does not match the body" };
}
