/**
 * What the typed client throws: `GoondanApiError` for an answer the API refused (its HTTP status and the API's coded
 * error, `code` such as `E_APPROVAL_DECIDED`, and the whole body for the fields some codes add), and
 * `GoondanConnectionError` when no answer came (nothing listens, the connection dropped). Each carries a stable `code`.
 */
import type { ApiErrorBody } from "../protocol/api-wire.ts";

export class GoondanApiError extends Error {
  override readonly name = "GoondanApiError";
  readonly status: number;
  readonly code: string;
  readonly body: ApiErrorBody | undefined;

  constructor(options: { status: number; body: unknown; what: string }) {
    const body = isErrorBody(options.body) ? options.body : undefined;
    super(`${options.what}: ${options.status} ${body?.error.code ?? ""} ${body?.error.message ?? ""}`.trim());
    this.status = options.status;
    this.code = body?.error.code ?? `E_HTTP_${options.status}`;
    this.body = body;
  }
}

export class GoondanConnectionError extends Error {
  override readonly name = "GoondanConnectionError";
  readonly code = "E_API_UNREACHABLE";

  constructor(what: string, cause: unknown) {
    super(`${what}: no answer (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
  }
}

function isErrorBody(body: unknown): body is ApiErrorBody {
  const error = (body as { error?: { code?: unknown } } | null)?.error;
  return typeof error === "object" && error !== null && typeof error.code === "string";
}
