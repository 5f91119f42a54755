/**
 * Durable JSON-lines files: tolerant reading (a torn or corrupt line is skipped and reported, never thrown),
 * appends that are flushed with fsync before returning, and atomic whole-file writes (temp file + fsync +
 * rename). Every persisted agent file (conversation, results, runtime events, pending results) uses these.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export interface SkippedLine {
  file: string;
  /** 1-based line number. */
  line: number;
  /** The first 200 characters of what was found. */
  text: string;
  /** True when it was the last line without a trailing newline: an interrupted append. */
  torn: boolean;
}

export interface JsonlRead<T> {
  records: T[];
  skipped: SkippedLine[];
}

export function readJsonl<T>(file: string): JsonlRead<T> {
  if (!existsSync(file)) return { records: [], skipped: [] };
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  const endsWithNewline = text.endsWith("\n");
  const records: T[] = [];
  const skipped: SkippedLine[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      const isLast = index === lines.length - 1 && !endsWithNewline;
      skipped.push({ file, line: index + 1, text: line.slice(0, 200), torn: isLast });
    }
  });
  return { records, skipped };
}

/** An append-only JSONL file kept open; `append` writes one line and (by default) fsyncs it. */
export class JsonlAppender {
  private fd: number | undefined;

  constructor(
    readonly file: string,
    private readonly options: { fsync?: boolean } = {},
  ) {}

  append(record: unknown): void {
    this.appendMany([record]);
  }

  appendMany(records: readonly unknown[]): void {
    if (records.length === 0) return;
    const fd = this.open();
    writeSync(fd, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
    if (this.options.fsync !== false) fsyncSync(fd);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): number {
    if (this.fd === undefined) {
      mkdirSync(dirname(this.file), { recursive: true });
      this.fd = openSync(this.file, "a");
    }
    return this.fd;
  }
}

/** Writes `content` to `file` atomically: a reader sees the old file or the new one, never a mix. */
export function writeFileAtomic(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}`;
  const fd = openSync(temp, "w");
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
}

export function writeJsonlAtomic(file: string, records: readonly unknown[]): void {
  writeFileAtomic(file, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
}
