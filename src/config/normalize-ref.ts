/**
 * Refs as normalization reads them: each ref written in a resource becomes an ObjectRef of the kind its field takes,
 * remembered with where it was written (RefUse) so check-refs can resolve it later; a ref to another kind is set
 * aside as a WrongKindRef. Also the context every normalize step shares (where the document is, its issues).
 */
import type { DocumentSite, IssueList, PathSegment } from "./issues.ts";
import { formatRef, isKind, readRef } from "./object-ref.ts";
import type { Kind, ObjectRef } from "./types.ts";

/** What the normalize steps of one resource share: where it was written, its issues, the refs it holds. */
export interface NormalizeContext {
  site: DocumentSite;
  issues: IssueList;
  refs: RefUse[];
  wrongKinds: WrongKindRef[];
}

/** Where a normalized ref was written, so that later checks can point at it. */
export interface RefUse {
  /** The normalized ref inside the resource's spec (check-refs fills in `package` for built-ins). */
  ref: ObjectRef;
  segments: PathSegment[];
}

/** A ref written in a field that takes another kind (`tools: [Model/m]`), reported by check-refs. */
export interface WrongKindRef {
  expected: Kind;
  /** The ref as written, e.g. `Model/m` or `Secret/echo`. */
  written: string;
  segments: PathSegment[];
}

// Schema validation has run: the shapes below are known; only values are read loosely.
export type Raw = Record<string, any>;

/** A ref to `expected`; sets aside (and returns undefined for) a ref to another kind. */
export function normalizeRef(
  input: unknown,
  expected: Kind,
  segments: PathSegment[],
  context: NormalizeContext,
): ObjectRef | undefined {
  const written = readRef(input);
  if (!written) return undefined;
  if (!isKind(written.kind) || written.kind !== expected) {
    context.wrongKinds.push({ expected, written: formatRef(written), segments });
    return undefined;
  }
  const ref: ObjectRef = {
    kind: expected,
    name: written.name,
    ...(written.package ? { package: written.package } : {}),
  };
  context.refs.push({ ref, segments });
  return ref;
}

export function normalizeRefList(
  items: unknown[] | undefined,
  expected: Kind,
  segments: PathSegment[],
  context: NormalizeContext,
): ObjectRef[] {
  return (items ?? []).flatMap((item, index) => normalizeRef(item, expected, [...segments, index], context) ?? []);
}
