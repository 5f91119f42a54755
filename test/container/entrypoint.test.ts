import { describe, expect, it } from "bun:test";
import { containerArgs } from "../../docker/entrypoint.ts";
import { checkHealth, healthUrl } from "../../docker/healthcheck.ts";

describe("containerArgs", () => {
  it("binds the API to 0.0.0.0 when GOONDAN_API_TOKEN is set", () => {
    const result = containerArgs({ argv: ["run", "/app/bundle"], env: { GOONDAN_API_TOKEN: "t0ken" } });
    expect(result.argv).toEqual(["run", "/app/bundle", "--host", "0.0.0.0"]);
    expect(result.warnings).toEqual([]);
  });

  it("binds the API to 127.0.0.1 and warns when no token is set", () => {
    for (const env of [{}, { GOONDAN_API_TOKEN: "  " }]) {
      const result = containerArgs({ argv: ["run", "/app/bundle"], env });
      expect(result.argv).toEqual(["run", "/app/bundle", "--host", "127.0.0.1"]);
      expect(result.warnings).toHaveLength(1);
    }
  });

  it("passes GOONDAN_PORT as --port unless --port is given", () => {
    expect(containerArgs({ argv: ["run"], env: { GOONDAN_PORT: "9000", GOONDAN_API_TOKEN: "t" } }).argv).toEqual([
      "run",
      "--host",
      "0.0.0.0",
      "--port",
      "9000",
    ]);
    expect(
      containerArgs({ argv: ["run", "--port=1"], env: { GOONDAN_PORT: "9000", GOONDAN_API_TOKEN: "t" } }).argv,
    ).toEqual(["run", "--port=1", "--host", "0.0.0.0"]);
  });

  it("keeps an explicit --host and warns when it is public without a token", () => {
    const result = containerArgs({ argv: ["run", "--host", "0.0.0.0"], env: {} });
    expect(result.argv).toEqual(["run", "--host", "0.0.0.0"]);
    expect(result.warnings).toHaveLength(1);
    expect(containerArgs({ argv: ["run", "--host=127.0.0.1"], env: {} }).warnings).toEqual([]);
  });

  it("leaves run --input alone: it serves no API, so there is nothing to bind or warn about", () => {
    expect(containerArgs({ argv: ["run", "/app/bundle", "--input", "hi"], env: { GOONDAN_PORT: "1" } })).toEqual({
      argv: ["run", "/app/bundle", "--input", "hi"],
      warnings: [],
    });
  });

  it("leaves other commands untouched", () => {
    expect(containerArgs({ argv: ["validate", "/app/bundle"], env: { GOONDAN_PORT: "1" } })).toEqual({
      argv: ["validate", "/app/bundle"],
      warnings: [],
    });
  });
});

describe("the healthcheck", () => {
  it("targets /healthz on the configured port, 8790 by default", () => {
    expect(healthUrl({})).toBe("http://127.0.0.1:8790/healthz");
    expect(healthUrl({ GOONDAN_PORT: "9001" })).toBe("http://127.0.0.1:9001/healthz");
  });

  it("is healthy only on a 200 answer, sending the bearer token", async () => {
    const seen: (string | null)[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        seen.push(request.headers.get("authorization"));
        return new URL(request.url).pathname === "/healthz"
          ? Response.json({ status: "ok" })
          : new Response("no", { status: 503 });
      },
    });
    try {
      expect(await checkHealth({ url: `http://127.0.0.1:${server.port}/healthz`, timeoutMs: 1000, token: "abc" })).toBe(
        true,
      );
      expect(await checkHealth({ url: `http://127.0.0.1:${server.port}/other`, timeoutMs: 1000 })).toBe(false);
      expect(seen).toEqual(["Bearer abc", null]);
    } finally {
      server.stop(true);
    }
  });

  it("is unhealthy when nothing listens", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = server.port;
    server.stop(true);
    expect(await checkHealth({ url: `http://127.0.0.1:${port}/healthz`, timeoutMs: 500 })).toBe(false);
  });
});
