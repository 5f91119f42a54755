/**
 * The one escaping of a name (a swarm, an agent, an instance key, a node) into a NATS subject token, which is
 * also a valid KV key token, KV bucket name part, stream name part and consumer name part. The mapping is
 * injective, so two instance keys never share a subject, a lease or a consumer.
 *
 * The plain form reads each UTF-16 code unit of the name in turn:
 *   - `A`-`Z`, `a`-`z`, `0`-`9` and `-` stay as they are;
 *   - any other code unit becomes `_` and exactly four lowercase hex digits (`.` → `_002e`, `_` → `_005f`,
 *     `가` → `_ac00`);
 *   - the empty name is `_` alone.
 * Every escape starts with `_` and has a fixed length, so a plain token splits into pieces in exactly one way
 * and decodeSubjectToken reads the name back: decode(encode(n)) = n, hence encode is injective on plain forms.
 *
 * A plain form longer than MAX_SUBJECT_TOKEN_LENGTH is bounded: its first pieces (cut between pieces) stay
 * readable, then `_h` and the SHA-256 of the whole plain form in hex. `_h` never occurs in a plain form (`h` is
 * not a hex digit), so a bounded token never equals a plain one, and two bounded tokens are equal only if two
 * plain forms have the same SHA-256. No token holds `.`, `*`, `>`, `=`, whitespace or a path separator, so
 * `=` is free to join two tokens into one name (consumer names).
 */
import { boundedName } from "../../shared/bounded-name.ts";

/** Longest token produced (all tokens are ASCII). */
export const MAX_SUBJECT_TOKEN_LENGTH = 160;

const VERBATIM = /^[A-Za-z0-9-]$/;

function pieces(name: string): string[] {
  if (name === "") return ["_"];
  const result: string[] = [];
  // Index by code unit, not by code point: a lone surrogate is a name like any other.
  for (let index = 0; index < name.length; index++) {
    const unit = name[index] as string;
    result.push(VERBATIM.test(unit) ? unit : `_${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
  }
  return result;
}

export function subjectToken(name: string): string {
  return boundedName(pieces(name), { maxLength: MAX_SUBJECT_TOKEN_LENGTH, marker: "_h" });
}

/** The name a plain token stands for; undefined for a bounded (hashed) token or a string this mapping never makes. */
export function decodeSubjectToken(token: string): string | undefined {
  if (token === "_") return "";
  let name = "";
  let index = 0;
  while (index < token.length) {
    const char = token[index] as string;
    if (VERBATIM.test(char)) {
      name += char;
      index += 1;
    } else if (char === "_" && /^[0-9a-f]{4}$/.test(token.slice(index + 1, index + 5))) {
      name += String.fromCharCode(Number.parseInt(token.slice(index + 1, index + 5), 16));
      index += 5;
    } else {
      return undefined;
    }
  }
  return subjectToken(name) === token ? name : undefined;
}
