/**
 * Reading one YAML file of a bundle into documents: a regular file only (a FIFO or a device is named and
 * never opened), the 1 MiB size and 100-document limits, multi-document parsing with the `yaml` package,
 * YAML errors with line and column, empty documents. Each parsed document keeps its node tree so that
 * later issues can point at a line: a field's value (its key when the value starts on a later line, or when
 * the field itself is the problem), a list item, or the closest parent that exists.
 */
import { stat } from "node:fs/promises";
import { isMap, isScalar, LineCounter, parseAllDocuments, type Document } from "yaml";
import { IssueList, type DocumentSite, type PathSegment } from "./issues.ts";
import { describeNonRegularFile } from "./file-kind.ts";

export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_DOCUMENTS = 100;
/** Alias expansion cap: stops "billion laughs" documents. */
const MAX_ALIAS_COUNT = 100;

export interface ParsedDocument {
  site: DocumentSite;
  /** The document as plain JS; `null` for an empty document. */
  value: unknown;
}

export interface ReadDocumentsResult {
  documents: ParsedDocument[];
  /** True when a document failed to parse (cross-document checks would only add noise). */
  parseFailed: boolean;
}

export async function readDocuments(options: {
  file: string;
  label: string;
  issues: IssueList;
}): Promise<ReadDocumentsResult> {
  const { file, label, issues } = options;
  let size: number;
  try {
    // stat follows symlinks: a link to /dev/urandom is a character device here, and is never opened.
    const info = await stat(file);
    const found = describeNonRegularFile(info);
    if (found !== undefined) {
      issues.add({
        code: "E_FILE_NOT_FOUND",
        path: label,
        message: `expected a regular file at ${file}, found ${found}`,
        suggestion: `make ${label} a plain file`,
      });
      return { documents: [], parseFailed: true };
    }
    size = info.size;
  } catch {
    issues.add({
      code: "E_FILE_NOT_FOUND",
      path: label,
      message: `expected a file at ${file}, found none`,
      suggestion: "run 'goondan init' or point at a bundle directory holding goondan.yaml",
    });
    return { documents: [], parseFailed: true };
  }
  if (size > MAX_FILE_BYTES) {
    issues.add({
      code: "E_CONFIG_FILE_TOO_LARGE",
      path: label,
      message: `expected at most ${MAX_FILE_BYTES} bytes, found ${size}`,
    });
    return { documents: [], parseFailed: true };
  }
  let text: string;
  try {
    text = await Bun.file(file).text();
  } catch (error) {
    issues.add({
      code: "E_CONFIG_FILE_UNREADABLE",
      path: label,
      message: `expected a readable file at ${file}, found: ${error instanceof Error ? error.message : String(error)}`,
    });
    return { documents: [], parseFailed: true };
  }
  try {
    return parseDocuments({ text, label, issues });
  } catch (error) {
    issues.add({
      code: "E_CONFIG_PARSE_ERROR",
      path: label,
      message: `expected YAML the parser can read, found: ${firstLine(error instanceof Error ? error.message : String(error))}`,
    });
    return { documents: [], parseFailed: true };
  }
}

function parseDocuments(options: { text: string; label: string; issues: IssueList }): ReadDocumentsResult {
  const { text, label, issues } = options;
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const yamlDocuments: Document.Parsed[] = Array.isArray(parsed) ? parsed : [];
  if (yamlDocuments.length > MAX_DOCUMENTS) {
    issues.add({
      code: "E_CONFIG_TOO_MANY_DOCUMENTS",
      path: label,
      message: `expected at most ${MAX_DOCUMENTS} documents in one file, found ${yamlDocuments.length}`,
      suggestion: "split the resources across agents.yaml, tools.yaml, models.yaml… next to goondan.yaml",
    });
    return { documents: [], parseFailed: true };
  }
  const documents: ParsedDocument[] = [];
  let parseFailed = false;
  yamlDocuments.forEach((yamlDocument, docIndex) => {
    const site = makeSite({ label, docIndex, yamlDocument, lineCounter });
    for (const error of yamlDocument.errors) {
      parseFailed = true;
      const position = error.linePos?.[0];
      const where = position ? `line ${position.line}, column ${position.col}` : "an unknown position";
      issues.add({
        code: "E_CONFIG_PARSE_ERROR",
        path: `${label}#${docIndex}`,
        message: `expected valid YAML, found a syntax error at ${where}: ${firstLine(error.message)}`,
        ...(position ? { line: position.line, column: position.col } : {}),
      });
    }
    for (const warning of yamlDocument.warnings) {
      const position = warning.linePos?.[0];
      issues.add({
        code: "W_CONFIG_YAML",
        path: `${label}#${docIndex}`,
        message: firstLine(warning.message),
        ...(position ? { line: position.line, column: position.col } : {}),
      });
    }
    if (yamlDocument.errors.length > 0) return;
    let value: unknown;
    try {
      value = yamlDocument.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      parseFailed = true;
      issues.add({
        code: "E_CONFIG_PARSE_ERROR",
        path: `${label}#${docIndex}`,
        message: `expected a plain YAML document, found: ${firstLine(error instanceof Error ? error.message : String(error))}`,
      });
      return;
    }
    documents.push({ site, value: value ?? null });
  });
  return { documents, parseFailed };
}

function makeSite(options: {
  label: string;
  docIndex: number;
  yamlDocument: Document.Parsed;
  lineCounter: LineCounter;
}): DocumentSite {
  const { label, docIndex, yamlDocument, lineCounter } = options;
  return {
    label,
    docIndex,
    locate(segments: readonly PathSegment[], options: { key?: boolean } = {}) {
      for (let length = segments.length; length >= 0; length--) {
        const value = length === 0 ? yamlDocument.contents : yamlDocument.getIn(segments.slice(0, length), true);
        const start = startOf(value);
        const key = length === 0 ? undefined : startOf(keyOf(yamlDocument, segments.slice(0, length)));
        // The key when asked for, or when the value starts on a later line (a block list or mapping under it).
        const offset =
          key !== undefined &&
          (options.key === true ||
            start === undefined ||
            lineCounter.linePos(start).line > lineCounter.linePos(key).line)
            ? key
            : start;
        if (offset !== undefined) {
          const position = lineCounter.linePos(offset);
          return { line: position.line, column: position.col };
        }
      }
      return undefined;
    },
  };
}

function startOf(node: unknown): number | undefined {
  return (node as { range?: [number, number, number] } | null | undefined)?.range?.[0];
}

/** The key node of a mapping field (`tools:` rather than its value, which may start on the next line). */
function keyOf(yamlDocument: Document.Parsed, segments: readonly PathSegment[]): unknown {
  const last = segments.at(-1);
  if (typeof last !== "string") return undefined;
  const parent = segments.length === 1 ? yamlDocument.contents : yamlDocument.getIn(segments.slice(0, -1), true);
  if (!isMap(parent)) return undefined;
  return parent.items.find((pair) => (isScalar(pair.key) ? pair.key.value : pair.key) === last)?.key;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
