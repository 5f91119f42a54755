/**
 * How the HTTP API answers a store fault: a store that cannot write now is `503 E_STORE_UNAVAILABLE` with
 * Retry-After (the client sends the event again later), a damaged database is `503 E_STORE_CORRUPT` naming the
 * file and the remedy; neither is the `500 E_INTERNAL` of a bug.
 */
import { describe, expect, it } from "bun:test";
import { errorResponse } from "../../src/http/api-error.ts";
import { silentLogger } from "../../src/shared/logger.ts";
import { storeFault } from "../../src/store/store-fault.ts";

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

async function answer(error: unknown) {
  const response = errorResponse({ error, logger: silentLogger(), method: "POST", path: "/v1/events" });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: (await response.json()) as { error: { code: string; message: string; suggestion?: string } },
  };
}

describe("store faults over HTTP", () => {
  it("answers a full disk 503 E_STORE_UNAVAILABLE with Retry-After", async () => {
    const got = await answer(storeFault(sqliteError("SQLITE_FULL", "database or disk is full"), "/s/goondan.db"));
    expect(got.status).toBe(503);
    expect(got.retryAfter).toBe("5");
    expect(got.body.error.code).toBe("E_STORE_UNAVAILABLE");
  });

  it("answers an I/O error of the log the same way", async () => {
    const got = await answer(storeFault(sqliteError("SQLITE_IOERR_WRITE", "disk I/O error"), "/s/goondan.db"));
    expect([got.status, got.body.error.code]).toEqual([503, "E_STORE_UNAVAILABLE"]);
  });

  it("answers a damaged page 503 E_STORE_CORRUPT naming the file and goondan backup", async () => {
    const got = await answer(
      storeFault(sqliteError("SQLITE_CORRUPT", "database disk image is malformed"), "/s/goondan.db"),
    );
    expect(got.status).toBe(503);
    expect(got.retryAfter).toBeNull();
    expect(got.body.error.code).toBe("E_STORE_CORRUPT");
    expect(got.body.error.message).toContain("/s/goondan.db");
    expect(got.body.error.suggestion).toContain("goondan backup");
  });

  it("leaves any other SQLite error a bug of ours: 500 E_INTERNAL", async () => {
    const got = await answer(
      storeFault(sqliteError("SQLITE_CONSTRAINT_UNIQUE", "UNIQUE constraint failed"), "/s/goondan.db"),
    );
    expect([got.status, got.body.error.code]).toEqual([500, "E_INTERNAL"]);
  });
});
