/**
 * Built-in `http-fetch`: GET and POST to http(s) URLs. Before every request, and again for every redirect
 * (followed by hand, at most 5), the host is resolved (all addresses) and refused when any address is
 * loopback, private, link-local, metadata or otherwise internal, unless `config.allowPrivateNetwork` is
 * true. The checked address is the one used (no DNS rebinding between check and connect): an http:// request
 * goes to the vetted IP itself (URL host rewritten, IPv6 bracketed, Host header kept as the original host); an
 * https:// request keeps its hostname, because TLS certificate verification already defeats rebinding: a name
 * re-resolved to an internal service cannot present a valid certificate for that name. Requests time out
 * (default 30 s) and bodies are capped (default 200000 bytes, never more than 250000). A POST body is `body`
 * (objects and arrays as JSON, strings as text) or, as in the public Goondan tool, the raw text `bodyString`;
 * header values may be numbers or booleans, sent as text.
 * DNS and fetch are injectable for tests through createHttpFetchHandlers. The answer is shaped in present-response.ts.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { JsonObject, JsonValue } from "../../shared/json.ts";
import { configBoolean, configNumber } from "../../tools/tool-config.ts";
import { ToolFault } from "../../tools/tool-errors.ts";
import type { ToolContext, ToolHandler } from "../../tools/types.ts";
import { blockedAddressReason } from "./network-policy.ts";
import { presentResponse } from "./present-response.ts";

export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = "goondan-http-fetch/0.1";

interface RequestPlan {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
}

export function createHttpFetchHandlers(
  deps: { lookup?: LookupAll; fetch?: FetchLike } = {},
): Record<string, ToolHandler> {
  const lookup: LookupAll = deps.lookup ?? ((hostname) => dnsLookup(hostname, { all: true, verbatim: true }));
  const fetchImpl: FetchLike = deps.fetch ?? ((url, init) => fetch(url, init));
  const run = (ctx: ToolContext, plan: RequestPlan) => fetchSafely({ ctx, plan, lookup, fetchImpl });
  return {
    get: (ctx, input) =>
      run(ctx, { method: "GET", url: String(input.url), headers: headersOf(input), ...limitsOf(ctx, input) }),
    post: (ctx, input) => {
      const headers = headersOf(input);
      // `bodyString` is a raw text body, used only without `body` (the public Goondan tool's rule).
      const raw = input.body === undefined && typeof input.bodyString === "string" ? input.bodyString : undefined;
      const payload = raw ?? input.body;
      let body: string | undefined;
      if (payload !== undefined) {
        const isText = typeof payload === "string";
        body = isText ? (payload as string) : JSON.stringify(payload);
        const contentType =
          typeof input.contentType === "string"
            ? input.contentType
            : isText
              ? "text/plain; charset=utf-8"
              : "application/json";
        if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type"))
          headers["content-type"] = contentType;
      }
      return run(ctx, {
        method: "POST",
        url: String(input.url),
        headers,
        ...(body === undefined ? {} : { body }),
        ...limitsOf(ctx, input),
      });
    },
  };
}

export const handlers: Record<string, ToolHandler> = createHttpFetchHandlers();

function headersOf(input: JsonObject): Record<string, string> {
  const headers: Record<string, string> = {};
  if (input.headers !== null && typeof input.headers === "object" && !Array.isArray(input.headers)) {
    for (const [name, value] of Object.entries(input.headers)) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
        headers[name] = String(value);
    }
  }
  if (!Object.keys(headers).some((name) => name.toLowerCase() === "user-agent")) headers["user-agent"] = USER_AGENT;
  return headers;
}

/** The most body bytes a call may keep, whatever it asks for: the tool output cap leaves no room for more. */
const MAX_BODY_BYTES = 250_000;

function limitsOf(ctx: ToolContext, input: JsonObject): { timeoutMs: number; maxBytes: number } {
  const asked =
    typeof input.maxBytes === "number" ? Math.floor(input.maxBytes) : configNumber(ctx.config, "maxBodyBytes", 200_000);
  return {
    timeoutMs:
      typeof input.timeoutMs === "number"
        ? Math.min(120_000, Math.max(100, input.timeoutMs))
        : configNumber(ctx.config, "timeoutMs", 30_000),
    maxBytes: Math.max(1, Math.min(asked, MAX_BODY_BYTES)),
  };
}

async function fetchSafely(options: {
  ctx: ToolContext;
  plan: RequestPlan;
  lookup: LookupAll;
  fetchImpl: FetchLike;
}): Promise<JsonValue> {
  const { ctx, plan, lookup, fetchImpl } = options;
  const allowPrivate = configBoolean(ctx.config, "allowPrivateNetwork", false);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, plan.timeoutMs);
  const onAbort = (): void => controller.abort();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  let url = parseUrl(plan.url);
  let method = plan.method;
  let body = plan.body;
  const headers = { ...plan.headers };
  try {
    for (let redirects = 0; ; redirects++) {
      const vetted = allowPrivate ? undefined : await untilAborted(checkHost(url, lookup), controller.signal);
      const target = connectTarget({ url, headers, vetted });
      const response = await fetchImpl(target.href, {
        method,
        headers: target.headers,
        ...(body === undefined ? {} : { body }),
        redirect: "manual",
        signal: controller.signal,
      });
      const location = response.headers.get("location");
      if (REDIRECT_STATUSES.has(response.status) && location !== null) {
        await response.body?.cancel().catch(() => {});
        if (redirects >= MAX_REDIRECTS)
          throw new ToolFault(
            "E_HTTP_FETCH_TOO_MANY_REDIRECTS",
            `more than ${MAX_REDIRECTS} redirects, last to ${location}`,
          );
        const next = parseUrl(location, url);
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
          deleteHeader(headers, "content-type");
        }
        if (next.origin !== url.origin) {
          deleteHeader(headers, "authorization");
          deleteHeader(headers, "cookie");
        }
        url = next;
        continue;
      }
      return await presentResponse(response, { url: url.href, redirects, maxBytes: plan.maxBytes });
    }
  } catch (error) {
    if (error instanceof ToolFault) throw error;
    if (timedOut)
      throw new ToolFault("E_HTTP_FETCH_TIMEOUT", `no complete response from ${url.host} within ${plan.timeoutMs} ms`, {
        suggestion: "Retry later or with a larger timeoutMs.",
      });
    if (ctx.signal.aborted) throw new ToolFault("E_HTTP_FETCH_ABORTED", "the request was cancelled");
    throw new ToolFault(
      "E_HTTP_FETCH_FAILED",
      `request to ${url.host} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

/** Rejects as soon as `signal` aborts (a DNS lookup cannot be cancelled, but we need not wait for it). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function parseUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = base === undefined ? new URL(text) : new URL(text, base);
  } catch {
    throw new ToolFault("E_HTTP_FETCH_URL", `not a valid absolute URL: ${JSON.stringify(text.slice(0, 300))}`, {
      suggestion: "Use an absolute URL such as https://example.com/path.",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolFault("E_HTTP_FETCH_SCHEME", `only http and https URLs are allowed, got ${url.protocol}`);
  }
  return url;
}

/**
 * Where to connect: for http://, the vetted address itself with the original host in the Host header; for
 * https:// (or when nothing was vetted), the URL unchanged — TLS verification ties the connection to the name.
 */
function connectTarget(options: { url: URL; headers: Record<string, string>; vetted: string | undefined }): {
  href: string;
  headers: Record<string, string>;
} {
  const { url, headers, vetted } = options;
  if (vetted === undefined || url.protocol !== "http:") return { href: url.href, headers };
  const direct = new URL(url.href);
  direct.hostname = isIP(vetted) === 6 ? `[${vetted}]` : vetted;
  const withHost = { ...headers };
  deleteHeader(withHost, "host");
  withHost.host = url.host;
  return { href: direct.href, headers: withHost };
}

/** Resolves the host, refuses any internal address, and returns the (first) vetted address to connect to. */
async function checkHost(url: URL, lookup: LookupAll): Promise<string> {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host)).map((entry) => entry.address);
    } catch (error) {
      throw new ToolFault(
        "E_HTTP_FETCH_DNS",
        `cannot resolve ${host}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (addresses.length === 0) throw new ToolFault("E_HTTP_FETCH_DNS", `${host} has no addresses`);
  }
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason !== null) {
      throw new ToolFault(
        "E_HTTP_FETCH_BLOCKED",
        `refusing to fetch ${url.host}: it resolves to ${address} (${reason}), which is not a public address`,
        {
          suggestion:
            "Only public internet addresses can be fetched. An operator can set allowPrivateNetwork: true in the http-fetch Tool config.",
        },
      );
    }
  }
  return addresses[0]!;
}

function deleteHeader(headers: Record<string, string>, name: string): void {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) delete headers[key];
}
