/**
 * The container's HEALTHCHECK: `GET /healthz` on the local API with Bun's fetch (the image has no curl).
 * Exit 0 when it answers 200 within the timeout, 1 otherwise. Reads `GOONDAN_PORT` (default 8790) and
 * sends `GOONDAN_API_TOKEN` as a bearer token when it is set.
 */
export function healthUrl(env: Record<string, string | undefined>): string {
  const port = env.GOONDAN_PORT && env.GOONDAN_PORT.trim() !== "" ? env.GOONDAN_PORT : "8790";
  return `http://127.0.0.1:${port}/healthz`;
}

export async function checkHealth(options: { url: string; timeoutMs: number; token?: string }): Promise<boolean> {
  try {
    const headers: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};
    const response = await fetch(options.url, { headers, signal: AbortSignal.timeout(options.timeoutMs) });
    return response.status === 200;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const healthy = await checkHealth({ url: healthUrl(process.env), timeoutMs: 2500, ...(process.env.GOONDAN_API_TOKEN ? { token: process.env.GOONDAN_API_TOKEN } : {}) });
  if (!healthy) process.stderr.write(`goondan healthcheck: ${healthUrl(process.env)} did not answer 200\n`);
  process.exit(healthy ? 0 : 1);
}
