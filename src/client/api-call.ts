/**
 * The client's one way to call the API: the base URL joined with the path, the bearer token, JSON in and out, a
 * refusal thrown as GoondanApiError and no answer as GoondanConnectionError. `open` returns the raw response of a
 * streamed answer (checked: a refusal is thrown, a body is there).
 */
import { GoondanApiError, GoondanConnectionError } from "./client-error.ts";

/** The part of fetch the client uses. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ApiCallOptions {
  /** The API's address, e.g. `http://127.0.0.1:8790` (a trailing slash is fine). */
  baseUrl: string;
  /** The API token (`GOONDAN_API_TOKEN` of the orchestrator); sent as `Authorization: Bearer`. Default: none. */
  token?: string;
  /** Default: the global fetch. */
  fetch?: FetchLike;
  /** Extra headers on every call. Default: none. */
  headers?: Record<string, string>;
}

export interface ApiRequest {
  method?: "GET" | "POST" | "DELETE";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export class ApiCaller {
  private readonly base: string;
  private readonly fetch: FetchLike;

  constructor(private readonly options: ApiCallOptions) {
    this.base = options.baseUrl.replace(/\/+$/, "");
    // Bound: a browser's fetch throws "Illegal invocation" when called as a method of another object.
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** The answer's response, refusals thrown. */
  async open(request: ApiRequest): Promise<Response> {
    const what = `${request.method ?? "GET"} ${request.path}`;
    let response: Response;
    try {
      response = await this.fetch(`${this.base}${request.path}`, {
        method: request.method ?? "GET",
        headers: {
          ...this.options.headers,
          ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
          ...request.headers,
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
    } catch (error) {
      if (request.signal?.aborted) throw error;
      throw new GoondanConnectionError(`${what} at ${this.base}`, error);
    }
    if (!response.ok) {
      const body = (await response.json().catch(() => undefined)) as unknown;
      throw new GoondanApiError({ status: response.status, body, what });
    }
    return response;
  }

  /** The answer's JSON. */
  async json<T>(request: ApiRequest): Promise<T> {
    return (await (await this.open(request)).json()) as T;
  }

  /** A streamed answer (asks for `text/event-stream`), its body there. */
  async stream(request: ApiRequest): Promise<Response & { body: ReadableStream<Uint8Array> }> {
    const response = await this.open({ ...request, headers: { accept: "text/event-stream", ...request.headers } });
    if (response.body === null || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream"))
      throw new GoondanApiError({
        status: response.status,
        body: await response.json().catch(() => undefined),
        what: `${request.method ?? "GET"} ${request.path} (expected a text/event-stream)`,
      });
    return response as Response & { body: ReadableStream<Uint8Array> };
  }
}
