/**
 * Where the API's credentials come from (src/http/auth): the tokens file and GOONDAN_API_TOKEN, refused with
 * E_API_TOKENS_INVALID naming the file and entry when malformed; the state root's generated token (mode 0600, made
 * once, kept across starts); GOONDAN_API_AUTH=off; the scopes each scope includes; the rate limit settings.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiAuth } from "../../../src/http/auth/api-auth.ts";
import { rateLimitsFromEnv } from "../../../src/http/auth/rate-limits.ts";
import { grants } from "../../../src/http/auth/scopes.ts";
import { readStateRootToken, stateRootTokenPath } from "../../../src/http/auth/state-root-token.ts";
import { configuredCredentials, parseTokensFile } from "../../../src/http/auth/tokens-file.ts";
import { useCleanups } from "../../helpers/cleanups.ts";

const defer = useCleanups();
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), "goondan-auth-"));
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const refusal = (run: () => unknown): { code: string; message: string } => {
  try {
    run();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected a refusal");
};

describe("the tokens file", () => {
  it("reads named credentials with scopes, YAML or JSON", () => {
    const yaml = "credentials:\n  - { name: alice, token: alice-token-0123456789, scopes: [approve] }\n";
    expect(parseTokensFile(yaml, "t.yaml")).toEqual([
      { name: "alice", token: "alice-token-0123456789", scopes: ["approve"] },
    ]);
    const json = JSON.stringify({
      credentials: [{ name: "ci", token: "ci-token-0123456789ab", scopes: ["operate", "read"] }],
    });
    expect(parseTokensFile(json, "t.json")[0]?.scopes).toEqual(["operate", "read"]);
  });

  it("refuses a malformed entry with E_API_TOKENS_INVALID naming the file, the entry and what was expected", () => {
    const cases: Array<[string, string]> = [
      ["credentials: []", "t.yaml: expected credentials: a non-empty list"],
      ["credentials: [{ name: a, token: short, scopes: [read] }]", "t.yaml credentials[0].token"],
      ["credentials: [{ name: 'a b', token: a-long-enough-token-1, scopes: [read] }]", "t.yaml credentials[0].name"],
      ["credentials: [{ name: a, token: a-long-enough-token-1, scopes: [root] }]", "t.yaml credentials[0].scopes"],
      ["credentials: [{ name: a, token: a-long-enough-token-1, scopes: [read], extra: 1 }]", "unknown field extra"],
    ];
    for (const [text, expected] of cases) {
      const error = refusal(() => parseTokensFile(text, "t.yaml"));
      expect(error.code).toBe("E_API_TOKENS_INVALID");
      expect(error.message).toContain(expected);
    }
  });

  it("makes GOONDAN_API_TOKEN the admin credential operator, and refuses two credentials with one name", () => {
    const dir = temp();
    const file = join(dir, "tokens.yaml");
    writeFileSync(file, "credentials:\n  - { name: operator, token: another-token-0123456789, scopes: [read] }\n");
    expect(configuredCredentials({ env: { GOONDAN_API_TOKEN: "t" } })).toEqual([
      { name: "operator", token: "t", scopes: ["admin"] },
    ]);
    const error = refusal(() => configuredCredentials({ env: { GOONDAN_API_TOKEN: "t" }, file }));
    expect(error.code).toBe("E_API_TOKENS_INVALID");
    expect(error.message).toContain("two credentials are named operator");
    expect(
      refusal(() => configuredCredentials({ env: { GOONDAN_API_TOKENS_FILE: join(dir, "none") } })).message,
    ).toContain("cannot read the tokens file (ENOENT)");
    // The same text in the environment, under a GOONDAN_SECRET_* name that never reaches a child process.
    const inline = JSON.stringify({
      credentials: [{ name: "ci", token: "ci-token-0123456789ab", scopes: ["operate"] }],
    });
    expect(configuredCredentials({ env: { GOONDAN_SECRET_API_TOKENS: inline } }).map((entry) => entry.name)).toEqual([
      "ci",
    ]);
  });
});

describe("the state root's generated token", () => {
  it("is made once with mode 0600 when nothing is configured, and kept across starts", () => {
    const stateRoot = temp();
    const first = apiAuth({ env: {}, stateRoot, host: "127.0.0.1" });
    expect(first.configured).toBe(0);
    expect(first.studio?.name).toBe("local");
    expect(statSync(stateRootTokenPath(stateRoot)).mode & 0o777).toBe(0o600);
    const token = readStateRootToken(stateRoot) as string;
    expect(token.length).toBeGreaterThanOrEqual(40);
    expect(first.credentials?.find(token)).toEqual({ name: "local", scopes: ["admin"] });
    const second = apiAuth({ env: {}, stateRoot, host: "127.0.0.1" });
    expect(second.credentials?.find(token)?.name).toBe("local");
  });

  it("is not made when a credential is configured, nor with GOONDAN_API_AUTH=off", () => {
    const stateRoot = temp();
    expect(apiAuth({ env: { GOONDAN_API_TOKEN: "configured" }, stateRoot, host: "0.0.0.0" }).studio?.name).toBe(
      "operator",
    );
    expect(apiAuth({ env: { GOONDAN_API_AUTH: "off" }, stateRoot, host: "127.0.0.1" }).credentials).toBeUndefined();
    expect(refusal(() => apiAuth({ env: {}, stateRoot, host: "0.0.0.0" })).code).toBe("E_API_TOKEN_REQUIRED");
    expect(readStateRootToken(stateRoot)).toBeUndefined();
    expect(
      refusal(() => apiAuth({ env: { GOONDAN_API_AUTH: "off", GOONDAN_API_TOKEN: "x" }, stateRoot, host: "127.0.0.1" }))
        .code,
    ).toBe("E_API_ACCESS_INVALID");
  });
});

describe("scopes and rate limit settings", () => {
  it("has admin include everything, and neither operate nor approve include the other", () => {
    expect(grants(["admin"], "approve")).toBe(true);
    expect(grants(["operate"], "read")).toBe(true);
    expect(grants(["operate"], "approve")).toBe(false);
    expect(grants(["approve"], "operate")).toBe(false);
    expect(grants(["read"], "operate")).toBe(false);
  });

  it("reads N/SECONDS or off, and refuses anything else naming the variable", () => {
    expect(rateLimitsFromEnv({})).toEqual({
      perCredential: { requests: 1200, seconds: 60 },
      perAddress: { requests: 600, seconds: 60 },
      loopback: false,
    });
    expect(
      rateLimitsFromEnv({
        GOONDAN_API_RATE_LIMIT_CREDENTIAL: "off",
        GOONDAN_API_RATE_LIMIT_ADDRESS: "10/1",
        GOONDAN_API_RATE_LIMIT_LOOPBACK: "on",
      }),
    ).toEqual({ perAddress: { requests: 10, seconds: 1 }, loopback: true });
    const error = refusal(() => rateLimitsFromEnv({ GOONDAN_API_RATE_LIMIT_ADDRESS: "lots" }));
    expect(error.code).toBe("E_API_RATE_LIMIT_INVALID");
    expect(error.message).toContain("GOONDAN_API_RATE_LIMIT_ADDRESS");
  });
});
