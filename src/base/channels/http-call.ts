/**
 * The HTTP round trip every channel client (Telegram, Slack, Discord) makes: a fetch bounded by a deadline and
 * by the caller's signal, whose failures become faults with the service's own codes (`E_TELEGRAM_TIMEOUT`,
 * `E_SLACK_UNREACHABLE`, …) with every secret (bot tokens, which Telegram puts in the URL) cut out of the
 * message, and a body reader that stops at a byte cap (the service's `…_FILE_TOO_LARGE`).
 */
import type { JsonObject } from "../../shared/json.ts";
import { TOOL_ERROR_CODES, ToolFault } from "../../tools/tool-errors.ts";

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** A service's name (for messages) and the codes its failures carry. */
export interface ChannelService {
  name: string;
  codes: { timeout: string; unreachable: string; fileTooLarge: string };
}

export interface HttpCallOptions {
  service: ChannelService;
  url: string;
  init: RequestInit;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Values that must never appear in an error message (tokens). */
  secrets: readonly string[];
  /** Default: the global fetch. */
  fetch?: FetchLike | undefined;
}

/** A request payload without its undefined fields (optional parameters the caller did not give). */
export function withoutUndefined(object: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as JsonObject;
}

/** Every secret in `text` replaced by `<redacted>`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) if (secret.length >= 4) result = result.split(secret).join("<redacted>");
  return result;
}

export async function httpCall(options: HttpCallOptions): Promise<Response> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, options.signal]);
  try {
    return await (options.fetch ?? fetch)(options.url, { ...options.init, signal });
  } catch (error) {
    if (deadline.signal.aborted) {
      throw new ToolFault(
        options.service.codes.timeout,
        `no answer from the ${options.service.name} API within ${options.timeoutMs} ms`,
        { suggestion: "Try again, or with a larger timeoutMs." },
      );
    }
    if (options.signal?.aborted)
      throw options.signal.reason instanceof Error
        ? options.signal.reason
        : new ToolFault(TOOL_ERROR_CODES.cancelled, "the request was cancelled");
    const reason = redactSecrets(error instanceof Error ? error.message : String(error), options.secrets);
    throw new ToolFault(
      options.service.codes.unreachable,
      `cannot reach the ${options.service.name} API at ${redactSecrets(new URL(options.url).origin, options.secrets)}: ${reason}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/** The response's JSON body, or undefined when it has none (an HTML error page, an empty body). */
export async function jsonBody(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** A stream's bytes, or undefined as soon as they pass `maxBytes` (the rest is not read). */
export async function readStreamCapped(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  if (stream === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** A response body's bytes, refused past `maxBytes` (checked on Content-Length and while reading). */
export async function readCapped(
  response: Response,
  options: { maxBytes: number; service: ChannelService },
): Promise<Uint8Array> {
  const tooLarge = (size: string) =>
    new ToolFault(options.service.codes.fileTooLarge, `the file is ${size}, more than maxBytes (${options.maxBytes})`, {
      suggestion: "Raise maxBytes (at most 20000000) if the file is really needed.",
    });
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge(`${declared} bytes`);
  }
  const bytes = await readStreamCapped(response.body, options.maxBytes);
  if (bytes === undefined) throw tooLarge(`over ${options.maxBytes} bytes`);
  return bytes;
}

/** A downloaded file's bytes: an answer that is not 2xx is `failureCode` (its body let go), else `readCapped`. */
export async function downloadedBytes(
  response: Response,
  options: { maxBytes: number; service: ChannelService; failureCode: string },
): Promise<Uint8Array> {
  if (!response.ok) {
    void response.body?.cancel().catch(() => undefined);
    throw new ToolFault(options.failureCode, `${options.service.name} file download failed: HTTP ${response.status}`);
  }
  return readCapped(response, options);
}
