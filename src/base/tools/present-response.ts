/**
 * The answer of `http-fetch` for one final response: url, status, headers (at most 50, long values cut), how many
 * redirects were followed, and the body read up to the byte cap (a cut UTF-8 character dropped); a JSON body that
 * was read whole is parsed into `json`, anything else is `body` text.
 */
import type { JsonObject, JsonValue } from "../../shared/json.ts";

export async function presentResponse(
  response: Response,
  options: { url: string; redirects: number; maxBytes: number },
): Promise<JsonValue> {
  const { bytes, total, truncated } = await readCapped(response, options.maxBytes);
  let text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (truncated && text.endsWith("\uFFFD")) text = text.slice(0, -1);
  const headers: JsonObject = {};
  let count = 0;
  response.headers.forEach((value, name) => {
    if (count++ < 50) headers[name] = value.length > 2000 ? `${value.slice(0, 2000)}…` : value;
  });
  const result: JsonObject = {
    url: options.url,
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    headers,
    redirects: options.redirects,
    bytesRead: total,
    truncated,
  };
  const contentType = response.headers.get("content-type") ?? "";
  if (!truncated && /\bjson\b/i.test(contentType)) {
    try {
      result.json = JSON.parse(text) as JsonValue;
      return result;
    } catch {
      // not JSON after all: fall through to text
    }
  }
  result.body = text;
  return result;
}

async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; total: number; truncated: boolean }> {
  if (response.body === null) return { bytes: new Uint8Array(), total: 0, truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - kept;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      kept += room;
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    kept += value.byteLength;
  }
  return { bytes: Buffer.concat(chunks), total: kept, truncated };
}
