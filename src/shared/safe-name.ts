/**
 * The file-system-safe name of a swarm instance key, an agent name or an instance key (one directory level
 * under the state root). The mapping is injective, so two keys never share a directory, and every name it
 * produces is safe on any POSIX file system, case-insensitive ones included: no `/`, no NUL, never `.` or
 * `..` or empty, only lowercase ASCII, and at most MAX_SAFE_NAME_LENGTH bytes (NAME_MAX is 255).
 *
 * The plain form reads each UTF-16 code unit of the key in turn:
 *   - `a`-`z`, `0`-`9`, `_`, `.`, `-` stay as they are;
 *   - an uppercase `A`-`Z` becomes `^` and its lowercase letter (`Bob` → `^bob`);
 *   - any other code unit becomes `+` and exactly four lowercase hex digits (`가` → `+ac00`, `/` → `+002f`);
 *   - the whole key `.` or `..` spells its dots `+002e`, and the empty key is `^` alone.
 * Every token starts with a distinct character and has a fixed length, so a plain name splits into tokens
 * in exactly one way, and decodeSafeName reads the key back: decode(encode(k)) = k for every k, hence
 * encode is injective on plain forms.
 *
 * A plain form longer than MAX_SAFE_NAME_LENGTH is bounded: its first tokens (at most MAX_SAFE_NAME_LENGTH - 65
 * characters, cut between tokens) stay readable, then `=` and the SHA-256 of the whole plain form in hex.
 * `=` never occurs in a plain form, so a bounded name never equals a plain one; two bounded names are equal
 * only if two different plain forms (hence keys) have the same SHA-256, which nobody has ever found.
 *
 * Directories named by the older mapping (`%` + variable-length hex, which let `가` and `¬00` meet at
 * `%ac00`) are renamed to these names by migrateSafeNames (migrate-safe-names.ts).
 */
import { boundedName } from "./bounded-name.ts";

/** Longest name produced, in bytes (all names are ASCII). */
export const MAX_SAFE_NAME_LENGTH = 200;

const VERBATIM = /[a-z0-9_.-]/;
const UPPERCASE = /[A-Z]/;

function token(unit: string): string {
  if (VERBATIM.test(unit)) return unit;
  if (UPPERCASE.test(unit)) return `^${unit.toLowerCase()}`;
  return `+${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

function plainTokens(key: string): string[] {
  if (key === "") return ["^"];
  if (key === "." || key === "..") return [...key].map(() => "+002e");
  const tokens: string[] = [];
  // Index by code unit, not by code point: a lone surrogate is a key like any other.
  for (let index = 0; index < key.length; index++) tokens.push(token(key[index] as string));
  return tokens;
}

export function safeName(key: string): string {
  return boundedName(plainTokens(key), { maxLength: MAX_SAFE_NAME_LENGTH, marker: "=" });
}

/** The key a plain name stands for; undefined for a bounded (hashed) name or a name this mapping never makes. */
export function decodeSafeName(name: string): string | undefined {
  if (name === "^") return "";
  let key = "";
  let index = 0;
  while (index < name.length) {
    const char = name[index] as string;
    if (VERBATIM.test(char)) {
      key += char;
      index += 1;
    } else if (char === "^" && /^[a-z]$/.test(name[index + 1] ?? "")) {
      key += (name[index + 1] as string).toUpperCase();
      index += 2;
    } else if (char === "+" && /^[0-9a-f]{4}$/.test(name.slice(index + 1, index + 5))) {
      key += String.fromCharCode(Number.parseInt(name.slice(index + 1, index + 5), 16));
      index += 5;
    } else {
      return undefined;
    }
  }
  return safeName(key) === name ? key : undefined;
}

/** True for a bounded name (readable prefix, `=`, hash): its key must be read from the directory's records. */
export function isHashedSafeName(name: string): boolean {
  return /=[0-9a-f]{64}$/.test(name);
}
