/**
 * The bound shared by the injective name mappings (safe-name.ts for directories, cluster/nats/subject-token.ts for
 * NATS subjects): a name made of fixed pieces stays as it is up to `maxLength`; a longer one keeps its first
 * pieces (cut between pieces, so the readable part never ends inside an escape), then `marker` and the SHA-256
 * of the whole plain name in hex. A marker that no plain name contains keeps bounded names apart from plain ones;
 * two bounded names are equal only if two plain names have the same SHA-256.
 */
import { createHash } from "node:crypto";

const HASH_LENGTH = 64;

export function boundedName(pieces: readonly string[], options: { maxLength: number; marker: string }): string {
  const plain = pieces.join("");
  if (plain.length <= options.maxLength) return plain;
  const prefixLength = options.maxLength - options.marker.length - HASH_LENGTH;
  let prefix = "";
  for (const piece of pieces) {
    if (prefix.length + piece.length > prefixLength) break;
    prefix += piece;
  }
  return `${prefix}${options.marker}${createHash("sha256").update(plain).digest("hex")}`;
}
