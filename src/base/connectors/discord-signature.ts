/**
 * Discord's interaction signing (developer docs: Interactions overview, "Validating security request headers"):
 * `X-Signature-Ed25519` is the hex Ed25519 signature of `<X-Signature-Timestamp><raw body>` by the
 * application's key; the application's public key (hex, from the developer portal) verifies it.
 */
import { createPublicKey, verify, type KeyObject } from "node:crypto";

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 raw key bytes follow. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export function discordPublicKey(hex: string): KeyObject {
  if (!/^[0-9a-fA-F]{64}$/.test(hex.trim()))
    throw Object.assign(new Error("discord: DISCORD_PUBLIC_KEY must be the application's public key, 64 hex digits"), {
      code: "E_CONNECTOR_CONFIG",
    });
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex.trim(), "hex")]),
    format: "der",
    type: "spki",
  });
}

export type DiscordSignatureCheck = { ok: true } | { ok: false; reason: string };

export function verifyDiscordSignature(options: {
  body: Uint8Array;
  key: KeyObject;
  signature: string | null;
  timestamp: string | null;
}): DiscordSignatureCheck {
  const { signature, timestamp } = options;
  if (!signature || !timestamp) return { ok: false, reason: "missing X-Signature-Ed25519 or X-Signature-Timestamp" };
  if (!/^[0-9a-fA-F]{128}$/.test(signature)) return { ok: false, reason: "X-Signature-Ed25519 must be 128 hex digits" };
  const signed = Buffer.concat([Buffer.from(timestamp), Buffer.from(options.body)]);
  return verify(null, signed, options.key, Buffer.from(signature, "hex"))
    ? { ok: true }
    : { ok: false, reason: "invalid request signature" };
}
