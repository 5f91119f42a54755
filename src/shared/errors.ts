/**
 * Error classes sorted by blame, each with a stable `code`: ConfigError (the user's files, extension and
 * connector code included), UsageError (a caller asked for something it may not: a bad request, an unknown
 * agent), ModelBehaviorError (the LLM did something unexpected), SystemError (our bug or the machine); a tool's
 * own ToolFault (tools/tool-errors.ts) is the fourth blame, "tool". Every coded error extends GoondanError.
 * Tests check `error.code`, never message strings.
 */
export type Blame = "config" | "usage" | "model" | "system" | "tool";

export abstract class GoondanError extends Error {
  abstract readonly blame: Blame;
  readonly code: string;
  readonly suggestion?: string;

  constructor(code: string, message: string, options: { suggestion?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.suggestion !== undefined) this.suggestion = options.suggestion;
    this.name = new.target.name;
  }
}

export class ConfigError extends GoondanError {
  readonly blame = "config" as const;
}

export class UsageError extends GoondanError {
  readonly blame = "usage" as const;
}

export class ModelBehaviorError extends GoondanError {
  readonly blame = "model" as const;
}

export class SystemError extends GoondanError {
  readonly blame = "system" as const;
}

export function isGoondanError(value: unknown): value is GoondanError {
  return value instanceof GoondanError;
}

/** What `describe` tells of a thrown value. */
export interface Described {
  name: string;
  message: string;
  /** A string or number `code` the value carries, as a string. */
  code?: string;
  suggestion?: string;
}

/**
 * The one description of any thrown value, for logs, structured errors and tool results: an Error's name,
 * message, `code` and `suggestion`; anything else as `NonErrorThrown` with a preview of the value. Never throws,
 * even for hostile values whose properties throw.
 */
export function describe(value: unknown): Described {
  try {
    if (value instanceof Error) {
      const code = (value as { code?: unknown }).code;
      const suggestion = (value as { suggestion?: unknown }).suggestion;
      const name = typeof value.name === "string" && value.name !== "" ? value.name : "Error";
      const message = typeof value.message === "string" ? value.message : String(value.message);
      return {
        name,
        message: message === "" ? `${name} thrown without a message` : message,
        ...(typeof code === "string" && code !== ""
          ? { code }
          : typeof code === "number"
            ? { code: String(code) }
            : {}),
        ...(typeof suggestion === "string" ? { suggestion } : {}),
      };
    }
    return { name: "NonErrorThrown", message: `non-Error value thrown: ${preview(value)}` };
  } catch {
    return { name: "NonErrorThrown", message: "a value was thrown that cannot be described" };
  }
}

function preview(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "symbol" || typeof value === "function") return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
