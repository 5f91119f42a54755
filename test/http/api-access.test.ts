/**
 * Reading who may use the API from the environment (GOONDAN_API_TOKEN, GOONDAN_API_ALLOWED_ORIGINS,
 * GOONDAN_API_ALLOWED_HOSTS), the token required beyond loopback, and what counts as loopback or a wildcard.
 */
import { describe, expect, it } from "bun:test";
import { apiAccessFromEnv, requireTokenOffLoopback } from "../../src/http/api-access.ts";
import { isLoopbackHost, isWildcardHost } from "../../src/http/bound-address.ts";
import { serveHttpApi } from "../../src/http/http-api.ts";
import { UsageError } from "../../src/shared/errors.ts";
import { apiFixture, backendOf } from "./api-fixture.ts";

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof UsageError ? error.code : "not a UsageError";
  }
};

describe("apiAccessFromEnv", () => {
  it("reads nothing from an empty environment", () => {
    expect(apiAccessFromEnv({})).toEqual({});
    expect(
      apiAccessFromEnv({ GOONDAN_API_TOKEN: "", GOONDAN_API_ALLOWED_ORIGINS: " , ", GOONDAN_API_ALLOWED_HOSTS: "" }),
    ).toEqual({});
  });

  it("reads the token and both comma-separated lists, normalized", () => {
    expect(
      apiAccessFromEnv({
        GOONDAN_API_TOKEN: "t0k!",
        GOONDAN_API_ALLOWED_ORIGINS: "http://localhost:5173/, HTTPS://Studio.Example.com:443",
        GOONDAN_API_ALLOWED_HOSTS: "Goondan.Internal, 10.0.0.7,[fd00::1], *",
      }),
    ).toEqual({
      token: "t0k!",
      allowedOrigins: ["http://localhost:5173", "https://studio.example.com"],
      allowedHosts: ["goondan.internal", "10.0.0.7", "fd00::1", "*"],
    });
  });

  it.each([
    [
      "an origin with a path",
      { GOONDAN_API_ALLOWED_ORIGINS: "http://localhost:5173/app" },
      "GOONDAN_API_ALLOWED_ORIGINS",
    ],
    ["an origin that is not a URL", { GOONDAN_API_ALLOWED_ORIGINS: "localhost:5173" }, "GOONDAN_API_ALLOWED_ORIGINS"],
    ["an origin of another scheme", { GOONDAN_API_ALLOWED_ORIGINS: "file:///tmp" }, "GOONDAN_API_ALLOWED_ORIGINS"],
    ["a host with a port", { GOONDAN_API_ALLOWED_HOSTS: "goondan.internal:8790" }, "GOONDAN_API_ALLOWED_HOSTS"],
    ["a host with a path", { GOONDAN_API_ALLOWED_HOSTS: "goondan.internal/x" }, "GOONDAN_API_ALLOWED_HOSTS"],
    ["a blank token", { GOONDAN_API_TOKEN: "   " }, "GOONDAN_API_TOKEN"],
  ])("refuses %s with E_API_ACCESS_INVALID naming the variable", (_name, env, variable) => {
    expect(codeOf(() => apiAccessFromEnv(env))).toBe("E_API_ACCESS_INVALID");
    expect(() => apiAccessFromEnv(env)).toThrow(variable);
  });
});

describe("requireTokenOffLoopback", () => {
  it("lets loopback listen without a token", () => {
    for (const host of ["127.0.0.1", "127.0.0.53", "localhost", "::1", "[::1]"])
      expect(codeOf(() => requireTokenOffLoopback({ host }))).toBeUndefined();
  });

  it("refuses anything else without a token, and lets it listen with one", () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.5", "goondan.example"]) {
      expect(codeOf(() => requireTokenOffLoopback({ host }))).toBe("E_API_TOKEN_REQUIRED");
      expect(() => requireTokenOffLoopback({ host })).toThrow(/beyond loopback/);
      expect(codeOf(() => requireTokenOffLoopback({ host, token: "t" }))).toBeUndefined();
    }
  });

  it("is enforced by serveHttpApi itself, before it listens", () => {
    const { orchestrator } = apiFixture();
    expect(codeOf(() => serveHttpApi({ backend: backendOf(orchestrator), host: "0.0.0.0", port: 0 }))).toBe(
      "E_API_TOKEN_REQUIRED",
    );
  });
});

describe("bound addresses", () => {
  it("tells loopback and wildcard addresses apart", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "::ffff:127.0.0.1", "LocalHost"].every(isLoopbackHost)).toBe(
      true,
    );
    expect(["0.0.0.0", "::", "10.0.0.1", "localhost.example", "::ffff:10.0.0.1"].some(isLoopbackHost)).toBe(false);
    expect(["0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0"].every(isWildcardHost)).toBe(true);
    expect(["127.0.0.1", "::1", "10.0.0.1", "localhost"].some(isWildcardHost)).toBe(false);
  });
});
