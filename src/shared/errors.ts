/**
 * Error classes sorted by blame, each with a stable `code`: ConfigError (the user's files),
 * ModelBehaviorError (the LLM did something unexpected), SystemError (our bug or the machine).
 * Tests check `error.code`, never message strings.
 */
export abstract class GoondanError extends Error {
  abstract readonly blame: "config" | "model" | "system" | "usage";
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

/** A one-line description of any thrown value, for logs and structured errors. */
export function describeError(value: unknown): { name: string; message: string; code?: string } {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return {
      name: value.name || "Error",
      message: value.message,
      ...(typeof code === "string" || typeof code === "number" ? { code: String(code) } : {}),
    };
  }
  if (typeof value === "string") return { name: "Error", message: value };
  let message: string;
  try {
    message = JSON.stringify(value) ?? String(value);
  } catch {
    message = String(value);
  }
  return { name: "NonErrorThrown", message: `non-Error value thrown: ${message}` };
}
