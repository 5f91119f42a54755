/**
 * The credentials of the HTTP API, in process (src/http/auth, middleware/authenticate.ts, rate-limit.ts): every route
 * but the open ones needs a credential; each needs its scope; every decision of a held call (`POST
 * /v1/approvals/:id`, AG-UI's resume) records the deciding credential and refuses a body approver naming anyone else;
 * the studio's login link works once and its cookie acts as the credential; the rate limits answer 429 with
 * Retry-After. The approvals desk is a stub that records what it was asked to decide.
 */
import { describe, expect, it } from "bun:test";
import type { ApiBackend } from "../../../src/http/api-backend.ts";
import { CredentialSet } from "../../../src/http/auth/credential.ts";
import { isOpenPath, scopeFor } from "../../../src/http/auth/route-scopes.ts";
import { StudioLogins } from "../../../src/http/auth/studio-logins.ts";
import { createApiApp, type HttpApiOptions } from "../../../src/http/http-api.ts";
import type { Approval } from "../../../src/protocol/approval.ts";

const TOKENS = {
  reader: "reader-token-0123456789",
  operator: "operator-token-0123456789",
  alice: "alice-token-0123456789",
  admin: "admin-token-0123456789",
};

const credentials = new CredentialSet([
  { name: "reader", token: TOKENS.reader, scopes: ["read"] },
  { name: "ci", token: TOKENS.operator, scopes: ["operate"] },
  { name: "alice", token: TOKENS.alice, scopes: ["approve"] },
  { name: "root", token: TOKENS.admin, scopes: ["admin"] },
]);

const approval: Approval = {
  id: "appr_1",
  agent: "a",
  instanceKey: "k",
  eventId: "evt_1",
  turnId: "turn_1",
  traceId: "trace_1",
  toolCallId: "call_1",
  toolName: "effects__append",
  arguments: {},
  requestedAt: 0,
  approvers: ["alice"],
};

function world(options: Partial<HttpApiOptions> = {}) {
  const decided: Array<{ id: string; approver?: string }> = [];
  const signals: string[] = [];
  const backend = {
    orchestrator: {
      swarm: { name: "s", entryAgent: "a", agents: new Map([["a", {}]]), policy: { requestTimeoutMs: 1000 } },
      onRuntimeEvents: () => () => {},
      approvals: {
        pending: async () => [approval],
        decide: async (request: { id: string; approver?: string }) => {
          decided.push({ id: request.id, ...(request.approver ? { approver: request.approver } : {}) });
          return {
            type: "decided",
            approval: { ...approval, decision: { decision: "approve", decidedAt: 0, decidedBy: request.approver } },
          };
        },
        signal: async (name: string) => {
          signals.push(name);
          return { type: "missing" };
        },
      },
    },
    processes: () => [],
  } as unknown as ApiBackend;
  const app = createApiApp({ backend, surfacesOff: ["a2a"], credentials, ...options });
  const call = (
    method: string,
    path: string,
    init: { token?: string; body?: unknown; headers?: Record<string, string>; address?: string } = {},
  ) =>
    app.fetch(
      new Request(`http://127.0.0.1:8790${path}`, {
        method,
        headers: {
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
          ...init.headers,
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      }),
      { keepOpen: () => {}, clientAddress: () => init.address },
    );
  return { app, call, decided, signals };
}

const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code;

describe("credentials and scopes", () => {
  it("gives every route a scope: reads need read, decisions need approve, other writes operate", () => {
    const { app } = world();
    const routes = app.routes.filter((route) => route.method !== "ALL").map((route) => `${route.method} ${route.path}`);
    const table = Object.fromEntries(
      [...new Set(routes)].map((route) => {
        const [method, path] = route.split(" ") as [string, string];
        return [route, isOpenPath(path) ? "open" : scopeFor(method, path.replaceAll(/:[a-zA-Z]+/g, "x"))];
      }),
    );
    expect(table["POST /v1/approvals/:id"]).toBe("approve");
    expect(table["POST /v1/signals/:name"]).toBe("approve");
    expect(table["POST /v1/events"]).toBe("operate");
    expect(table["POST /v1/ag-ui"]).toBe("operate");
    expect(table["POST /v1/chat/completions"]).toBe("operate");
    expect(table["POST /v1/restart"]).toBe("operate");
    expect(table["GET /v1/approvals"]).toBe("read");
    expect(table["GET /healthz"]).toBe("open");
    expect(table["GET /login"]).toBe("open");
    // Nothing but the health check, the login link and the studio's static files is open.
    expect(
      Object.entries(table)
        .filter(([, scope]) => scope === "open")
        .map(([route]) => route)
        .sort(),
    ).toEqual(["GET /", "GET /healthz", "GET /login", "GET /studio/:file"]);
  });

  it("refuses a request without a credential, or with a wrong one, with 401 E_API_UNAUTHORIZED", async () => {
    const { call } = world();
    for (const token of [undefined, "nope"]) {
      const response = await call("GET", "/v1/approvals", token ? { token } : {});
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await codeOf(response)).toBe("E_API_UNAUTHORIZED");
    }
    expect((await call("GET", "/healthz")).status).toBe(200);
  });

  it("lets a read credential read but not approve, signal or send events (403 E_API_SCOPE_REQUIRED)", async () => {
    const { call, decided, signals } = world();
    expect((await call("GET", "/v1/approvals", { token: TOKENS.reader })).status).toBe(200);
    for (const [path, body] of [
      ["/v1/approvals/appr_1", { decision: "approve" }],
      ["/v1/signals/go", {}],
      ["/v1/events", { input: "hi" }],
    ] as const) {
      const response = await call("POST", path, { token: TOKENS.reader, body });
      expect(response.status).toBe(403);
      expect(await codeOf(response)).toBe("E_API_SCOPE_REQUIRED");
    }
    expect(decided).toEqual([]);
    expect(signals).toEqual([]);
  });

  it("keeps an operate credential from deciding approvals or sending signals", async () => {
    const { call, decided } = world();
    const response = await call("POST", "/v1/approvals/appr_1", {
      token: TOKENS.operator,
      body: { decision: "approve" },
    });
    expect(response.status).toBe(403);
    expect(await codeOf(response)).toBe("E_API_SCOPE_REQUIRED");
    expect((await call("POST", "/v1/signals/go", { token: TOKENS.operator, body: {} })).status).toBe(403);
    expect(decided).toEqual([]);
  });

  it("records the deciding credential as the approver, and refuses a body approver naming anyone else", async () => {
    const { call, decided } = world();
    const spoofed = await call("POST", "/v1/approvals/appr_1", {
      token: TOKENS.admin,
      body: { decision: "approve", approver: "alice" },
    });
    expect(spoofed.status).toBe(403);
    expect(await codeOf(spoofed)).toBe("E_APPROVAL_APPROVER_MISMATCH");
    expect(decided).toEqual([]);
    const own = await call("POST", "/v1/approvals/appr_1", { token: TOKENS.alice, body: { decision: "approve" } });
    expect(own.status).toBe(200);
    const confirmed = await call("POST", "/v1/approvals/appr_1", {
      token: TOKENS.alice,
      body: { decision: "approve", approver: "alice" },
    });
    expect(confirmed.status).toBe(200);
    expect(decided).toEqual([
      { id: "appr_1", approver: "alice" },
      { id: "appr_1", approver: "alice" },
    ]);
  });

  it("puts AG-UI's resume through the same check, before its stream opens", async () => {
    const { call, decided } = world();
    const body = {
      threadId: "t",
      runId: "r",
      messages: [],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {},
      resume: [{ interruptId: "appr_1", status: "resolved", payload: { approved: true } }],
    };
    const refused = await call("POST", "/v1/ag-ui", { token: TOKENS.operator, body });
    expect(refused.status).toBe(403);
    expect(await codeOf(refused)).toBe("E_API_SCOPE_REQUIRED");
    expect(decided).toEqual([]);
    // The run itself needs operate; what it decides needs approve besides: admin holds both.
    const allowed = await call("POST", "/v1/ag-ui", { token: TOKENS.admin, body });
    expect(allowed.status).toBe(200);
    await allowed.text();
    expect(decided[0]).toEqual({ id: "appr_1", approver: "root" });
  });

  it("without credentials (GOONDAN_API_AUTH=off) stays open and records the declared approver", async () => {
    const { call, decided } = world({ credentials: new CredentialSet([]) });
    const response = await call("POST", "/v1/approvals/appr_1", { body: { decision: "approve", approver: "bob" } });
    expect(response.status).toBe(200);
    expect(decided).toEqual([{ id: "appr_1", approver: "bob" }]);
  });
});

describe("the studio's login link", () => {
  it("logs in once: the cookie acts as the credential, the code is spent, the approver is the credential", async () => {
    const logins = new StudioLogins();
    const { call, decided } = world({ logins });
    const code = logins.mint({ name: "alice", scopes: ["approve"] });
    const login = await call("GET", `/login?token=${code}`);
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/");
    const cookie = login.headers.get("set-cookie") ?? "";
    expect(cookie).toContain("goondan_session_8790=");
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    const session = cookie.split(";")[0] as string;
    expect((await call("GET", "/v1/approvals", { headers: { cookie: session } })).status).toBe(200);
    // The studio's approve button: no approver in the body.
    const approve = await call("POST", "/v1/approvals/appr_1", {
      headers: { cookie: session },
      body: { decision: "approve", stream: false },
    });
    expect(approve.status).toBe(200);
    expect(decided).toEqual([{ id: "appr_1", approver: "alice" }]);
    const again = await call("GET", `/login?token=${code}`);
    expect(again.status).toBe(401);
    expect(await codeOf(again)).toBe("E_API_LOGIN_INVALID");
    expect((await call("GET", "/v1/approvals", { headers: { cookie: "goondan_session_8790=forged" } })).status).toBe(
      401,
    );
  });

  it("mints a new code for the caller's own credential through POST /v1/login-codes", async () => {
    const logins = new StudioLogins();
    const { call } = world({ logins });
    const minted = await call("POST", "/v1/login-codes", { token: TOKENS.reader });
    expect(minted.status).toBe(201);
    const { path, credential } = (await minted.json()) as { path: string; credential: string };
    expect(credential).toBe("reader");
    const login = await call("GET", path);
    const session = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    // It is the reader: it may read, not approve.
    expect((await call("GET", "/v1/approvals", { headers: { cookie: session } })).status).toBe(200);
    const approve = await call("POST", "/v1/approvals/appr_1", {
      headers: { cookie: session },
      body: { decision: "approve" },
    });
    expect(approve.status).toBe(403);
  });
});

describe("rate limits", () => {
  it("answers 429 E_API_RATE_LIMITED with Retry-After per credential, each credential on its own", async () => {
    const { call } = world({ rateLimits: { perCredential: { requests: 2, seconds: 60 }, loopback: false } });
    const from = "192.0.2.7";
    expect((await call("GET", "/v1/approvals", { token: TOKENS.reader, address: from })).status).toBe(200);
    expect((await call("GET", "/v1/approvals", { token: TOKENS.reader, address: from })).status).toBe(200);
    const limited = await call("GET", "/v1/approvals", { token: TOKENS.reader, address: from });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await codeOf(limited)).toBe("E_API_RATE_LIMITED");
    expect((await call("GET", "/v1/approvals", { token: TOKENS.alice, address: from })).status).toBe(200);
    // Loopback clients are not counted unless the settings say so.
    for (let i = 0; i < 5; i += 1)
      expect((await call("GET", "/v1/approvals", { token: TOKENS.reader, address: "127.0.0.1" })).status).toBe(200);
  });

  it("limits per client address before authentication, so wrong tokens are limited too", async () => {
    const { call } = world({ rateLimits: { perAddress: { requests: 2, seconds: 60 }, loopback: true } });
    expect((await call("GET", "/v1/approvals", { token: "wrong", address: "::1" })).status).toBe(401);
    expect((await call("GET", "/v1/approvals", { token: "wrong", address: "::1" })).status).toBe(401);
    const limited = await call("GET", "/v1/approvals", { token: TOKENS.admin, address: "::1" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("30");
    expect((await call("GET", "/v1/approvals", { token: TOKENS.admin, address: "::2" })).status).toBe(200);
  });
});
