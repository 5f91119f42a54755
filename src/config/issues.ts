/**
 * Building config issues: the `file#docIndex.spec.field` path, the line and column of the YAML node
 * it points at, and an IssueList that collects errors and warnings so that validation reports every
 * problem at once.
 */
import type { ConfigIssue } from "./types.ts";
import { severityOf, type IssueCode } from "./issue-codes.ts";

export type PathSegment = string | number;

/** One YAML document of a file, as issues point at it. */
export interface DocumentSite {
  /** The file as shown in paths: relative to the bundle dir (`goondan.yaml`) or `@goondan/base/goondan.yaml`. */
  label: string;
  docIndex: number;
  /**
   * Line and column (1-based) of the node at `segments`, or of its closest existing parent; with `key`, of the
   * field's key rather than its value.
   */
  locate(segments: readonly PathSegment[], options?: { key?: boolean }): { line: number; column: number } | undefined;
}

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** `spec.exports[0].name` from `["spec", "exports", 0, "name"]`. */
export function formatSegments(segments: readonly PathSegment[]): string {
  let text = "";
  for (const segment of segments) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += `${text === "" ? "" : "."}${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

export function formatPath(
  site: Pick<DocumentSite, "label" | "docIndex">,
  segments: readonly PathSegment[] = [],
): string {
  const tail = formatSegments(segments);
  return `${site.label}#${site.docIndex}${tail === "" ? "" : tail.startsWith("[") ? tail : `.${tail}`}`;
}

export interface IssueInput {
  code: IssueCode;
  message: string;
  suggestion?: string | undefined;
  /** Point at the field's key instead of its value (an unknown field). Default: the value. */
  atKey?: boolean | undefined;
}

export class IssueList {
  readonly errors: ConfigIssue[] = [];
  readonly warnings: ConfigIssue[] = [];

  /** Adds an issue at a node of a document. */
  at(site: DocumentSite, segments: readonly PathSegment[], input: IssueInput): void {
    const { atKey, ...issue } = input;
    const position = site.locate(segments, { key: atKey === true });
    this.add({ ...issue, path: formatPath(site, segments), ...(position ?? {}) });
  }

  /** Adds an issue with a ready path (file-level problems). */
  add(input: IssueInput & { path: string; line?: number; column?: number }): void {
    const issue: ConfigIssue = {
      code: input.code,
      severity: severityOf(input.code),
      message: input.message,
      path: input.path,
      ...(input.suggestion ? { suggestion: input.suggestion } : {}),
      ...(input.line !== undefined ? { line: input.line, column: input.column ?? 1 } : {}),
    };
    (issue.severity === "error" ? this.errors : this.warnings).push(issue);
  }
}

/** A short JSON rendering of a found value for "expected … found …" messages. */
export function describeFound(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
