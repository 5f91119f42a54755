/**
 * A bounded fuzz of the HTTP API (issue 11, "Also"): generated methods, paths, query strings, headers (Host, Origin,
 * Sec-Fetch-Site, Content-Type, Authorization, …) and bodies (mutated event and restart bodies, any JSON, text,
 * bytes, bodies past the limit) thrown over real HTTP at every route. Every answer must be a documented 2xx or a
 * coded JSON 4xx (501 and 504 where documented), never a 500, a stack trace or a dropped connection; the server keeps
 * serving; and events accepted before the fuzz are still answered after it. Most runs hit an API served over a real
 * Orchestrator with the fake spawner; one pass hits a real `goondan run` with real agent children.
 * Bounded by FUZZ_RUNS / FUZZ_MS (defaults below); FUZZ_SEED replays a run.
 */
import { describe, expect, it } from "bun:test";
import fc from "fast-check";
import { connect } from "node:net";
import { serveHttpApi } from "../../src/http/http-api.ts";
import { createLogger } from "../../src/shared/logger.ts";
import type { AgentEvent } from "../../src/protocol/agent-event.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import type { FakeChild } from "../helpers/fake-spawner.ts";
import { until } from "../helpers/goondan-process.ts";
import { lastUserText } from "../helpers/loopback-llm.ts";
import { apiFixture, backendOf } from "./api-fixture.ts";
import { serveRealSwarm } from "./run-fixture.ts";

const defer = useCleanups();
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const ALLOWED_ORIGIN = "http://localhost:5173";

/** The codes each status may carry (docs/http-api.md#errors). */
const CODES: Record<number, string[]> = {
  400: ["E_API_BAD_REQUEST", "E_API_BAD_JSON"],
  401: ["E_API_UNAUTHORIZED"],
  403: ["E_API_HOST_FORBIDDEN", "E_API_ORIGIN_FORBIDDEN"],
  404: ["E_API_NOT_FOUND", "E_AGENT_NOT_FOUND", "E_INSTANCE_NOT_FOUND", "E_API_EVENT_NOT_FOUND"],
  405: ["E_API_METHOD_NOT_ALLOWED"],
  413: ["E_API_BODY_TOO_LARGE"],
  415: ["E_API_UNSUPPORTED_MEDIA_TYPE"],
  422: ["E_CONFIG_INVALID"],
  501: ["E_RESTART_UNAVAILABLE"],
  504: ["E_AGENT_REQUEST_TIMEOUT"],
};

interface Shot {
  method: string;
  path: string;
  query: string | undefined;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

// ---- generators ----------------------------------------------------------------------------------------------

const printable = fc.string({ unit: "grapheme-ascii", maxLength: 40 });
const nasty = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "a",
    "b",
    "zed",
    "x".repeat(300),
    "k".repeat(5000),
    "가",
    "🐝",
    "\u0000",
    "\n",
    "\ud800",
    "../../etc/passwd",
    "null",
    "true",
    "0",
  ),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 2 }),
);
const eventBody = fc.record(
  {
    input: nasty,
    agent: fc.oneof(fc.constantFrom("a", "b", "zed"), nasty),
    instanceKey: nasty,
    wait: fc.oneof(fc.boolean(), nasty),
    stream: fc.oneof(fc.boolean(), nasty),
    timeoutMs: fc.oneof(fc.integer({ min: 1, max: 50 }), nasty),
    metadata: nasty,
    reason: nasty,
    fresh: fc.oneof(fc.boolean(), nasty),
    extra: nasty,
  },
  { requiredKeys: [] },
);
const body = fc.oneof(
  { weight: 4, arbitrary: eventBody.map((value) => JSON.stringify(value)) },
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          input: fc.string({ minLength: 1, maxLength: 20 }),
          wait: fc.boolean(),
          timeoutMs: fc.integer({ min: 1, max: 2000 }),
        },
        { requiredKeys: ["input"] },
      )
      .map((value) => JSON.stringify(value)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      JSON.stringify({ input: "x".repeat(10_000) }),
      "{",
      "[]",
      "",
      "  ",
      "null",
      '{"input":"x","input":5}',
      '{"__proto__":{"input":"x"}}',
    ),
  },
);
const segment = fc.oneof(
  fc.constantFrom(
    "a",
    "b",
    "zed",
    "k",
    "..",
    ".",
    "%2F",
    "%00",
    "%E0%A4%A",
    "%zz",
    "k".repeat(300),
    "%EA%B0%80",
    "events",
    "v1",
  ),
  fc.string({ maxLength: 16 }).map(encodeURIComponent),
);
const path = fc.oneof(
  fc.constantFrom(
    "/healthz",
    "/v1/processes",
    "/v1/instances",
    "/v1/instances/a/k/events",
    "/v1/events",
    "/v1/restart",
    "/",
    "/v1",
    "/v1/events/evt_1",
    "/healthz/",
    "//v1//events",
    "/V1/EVENTS",
  ),
  fc.tuple(segment, segment).map(([agent, key]) => `/v1/instances/${agent}/${key}/events`),
  fc.array(segment, { maxLength: 5 }).map((parts) => `/${parts.join("/")}`),
);
const query = fc.option(
  fc.oneof(
    fc.constantFrom(
      "limit=1",
      "limit=0",
      "limit=abc",
      "limit=1&limit=2",
      "limit=100001",
      "limit=",
      "x=1",
      "wait=true",
      "",
      "%zz",
    ),
    fc
      .tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }))
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`),
  ),
  { nil: undefined },
);
/**
 * Headers, each absent most of the time so that most requests get past the guards to the routes: `ABSENT` leaves a
 * header out, `SELF` stands for the server's own host:port and `SELF-ORIGIN` for its origin.
 */
const header = (values: fc.Arbitrary<string>, presentOneIn = 4) =>
  fc.oneof({ weight: presentOneIn - 1, arbitrary: fc.constant("ABSENT") }, { weight: 1, arbitrary: values });
const headers = fc.record({
  "content-type": fc.oneof(
    { weight: 6, arbitrary: fc.constant("application/json") },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "ABSENT",
        "application/json; charset=utf-8",
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=utf-16",
        "application/vnd.x+json",
        "",
      ),
    },
    { weight: 1, arbitrary: printable },
  ),
  origin: header(
    fc.oneof(
      fc.constantFrom("http://evil.example", "null", "SELF-ORIGIN", ALLOWED_ORIGIN, "https://127.0.0.1"),
      printable,
    ),
    6,
  ),
  "sec-fetch-site": header(fc.constantFrom("cross-site", "same-site", "same-origin", "none", "bogus"), 6),
  host: header(
    fc.oneof(fc.constantFrom("localhost", "attacker.example", "[::1]", "127.0.0.1:1", "", "a b"), printable),
    6,
  ),
  authorization: header(
    fc.oneof(
      fc.constantFrom("Bearer fuzz-token", "Bearer fuzz-token", "Bearer wrong", "Bearer ", "Basic Zm9vOmJhcg=="),
      printable,
    ),
    2,
  ),
  accept: header(fc.constantFrom("application/json", "text/event-stream", "*/*")),
  "access-control-request-method": header(fc.constantFrom("POST", "GET", "DELETE")),
  "x-fuzz": header(printable),
});
const method = fc.constantFrom(
  "GET",
  "GET",
  "POST",
  "POST",
  "POST",
  "PUT",
  "DELETE",
  "PATCH",
  "HEAD",
  "OPTIONS",
  "PROPFIND",
  "CONNECT",
);
/** Most shots aim at a route with its own method (so they reach the route), the rest go anywhere. */
const route = fc.constantFrom<[string, string]>(
  ["GET", "/healthz"],
  ["GET", "/v1/processes"],
  ["GET", "/v1/instances"],
  ["GET", "/v1/instances/a/k/events"],
  ["GET", "/v1/instances/a/test-swarm/events"],
  ["POST", "/v1/events"],
  ["POST", "/v1/events"],
  ["POST", "/v1/events"],
  ["POST", "/v1/restart"],
);
const rareQuery = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: query });
const shot: fc.Arbitrary<Shot> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .record({ route, query: rareQuery, headers, body: fc.option(body, { nil: undefined, freq: 8 }) })
      .map(({ route: [method, path], ...rest }) => ({ method, path, ...rest })),
  },
  {
    weight: 2,
    arbitrary: fc.record({ method, path, query, headers, body: fc.option(body, { nil: undefined, freq: 4 }) }),
  },
);

// ---- one request and its checks ------------------------------------------------------------------------------

function resolveHeaders(shot: Shot, port: number): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [name, value] of Object.entries(shot.headers)) {
    if (value !== "ABSENT") resolved[name] = value === "SELF-ORIGIN" ? `http://127.0.0.1:${port}` : value;
  }
  return resolved;
}

/** Sends one shot and fails unless the answer is a documented 2xx or a coded JSON error without a stack. */
async function fire(options: {
  base: string;
  port: number;
  shot: Shot;
  adjust?: (shot: Shot) => Shot;
}): Promise<number> {
  const shot = options.adjust ? options.adjust(options.shot) : options.shot;
  const url = `${options.base}${shot.path}${shot.query === undefined ? "" : `?${shot.query}`}`;
  const bodyless = shot.method === "GET" || shot.method === "HEAD";
  let response: Response;
  try {
    response = await fetch(url, {
      method: shot.method,
      headers: resolveHeaders(shot, options.port),
      ...(bodyless || shot.body === undefined ? {} : { body: shot.body }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new Error(`no answer to ${shot.method} ${url}: ${(error as Error).message}`);
  }
  const text = await response.text();
  const where = `${shot.method} ${url.slice(0, 200)} → ${response.status} ${text.slice(0, 300)}`;
  expect(response.status, where).not.toBe(500);
  expect([200, 202, 204, ...Object.keys(CODES).map(Number)], where).toContain(response.status);
  expect(text, where).not.toMatch(/\n\s+at |node_modules|\/src\//);
  // HEAD has no body, nor a preflight's 204 (Bun's client also drops what answers a CONNECT).
  if (shot.method === "HEAD" || shot.method === "CONNECT" || response.status === 204) return response.status;
  // `"stream": true`: an event stream that ends with exactly one `done` or `error`.
  if (response.status === 200 && response.headers.get("content-type") === "text/event-stream") {
    expect(text.match(/^event: (done|error)$/gm), where).toHaveLength(1);
    return response.status;
  }
  // The studio's page and assets and the metrics exposition are the answers that are not JSON.
  // Bun's client sends `//.` as `/` (it merges the empty and dot segments), so compare the path as it was served.
  const pathname = new URL(url).pathname.replace(/\/(\.\/?)*(?=\/|$)/g, "/").replace(/^\/+/, "/");
  if (response.status === 200 && (pathname === "/" || pathname.startsWith("/studio/") || pathname === "/metrics")) {
    expect(response.headers.get("content-type"), where).toMatch(/^text\/(html|javascript|css|plain)/);
    return response.status;
  }
  expect(response.headers.get("content-type"), where).toBe("application/json");
  const json = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
  if (response.status >= 400) {
    expect(CODES[response.status], where).toContain(json.error?.code as string);
    expect(typeof json.error?.message, where).toBe("string");
  }
  return response.status;
}

function summary(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

// ---- the served API over a real Orchestrator ------------------------------------------------------------------

describe("the HTTP API under fuzz", () => {
  it("answers every generated request with a documented 2xx or a coded 4xx, keeps serving, and loses nothing accepted before", async () => {
    const logged: string[] = [];
    const logger = createLogger("http-fuzz", {
      level: "warn",
      destination: { write: (line: string) => void logged.push(line) },
    });
    const { orchestrator, spawner } = apiFixture();
    const held: { child: FakeChild; event: AgentEvent }[] = [];
    spawner.onSent = (child, message) => {
      if (message.type !== "event") return;
      const { event } = message.payload;
      if (event.input.startsWith("KEEP ")) held.push({ child, event });
      else queueMicrotask(() => child.reply({ event, response: "fuzzed" }));
    };
    const served = serveHttpApi({
      backend: backendOf(orchestrator, async () => ({ accepted: true, issues: [] })),
      host: "127.0.0.1",
      port: 0,
      maxBodyBytes: 4096,
      allowedOrigins: [ALLOWED_ORIGIN],
      logger,
    });
    defer(() => served.stop());
    const base = `http://127.0.0.1:${served.port}`;
    const keys = [1, 2, 3].map((n) => `keep-${crypto.randomUUID()}-${n}`);
    // Accepted before the fuzz: three waiting clients whose turns are held until it is over.
    const waiting = keys.map((instanceKey) =>
      fetch(`${base}/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: `KEEP ${instanceKey}`, agent: "b", instanceKey, wait: true }),
      }).catch((error: Error) => error),
    );
    await until(() => held.length === keys.length);

    const statuses: number[] = [];
    await fc.assert(
      fc.asyncProperty(
        shot,
        async (generated) => void statuses.push(await fire({ base, port: served.port, shot: generated })),
      ),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 700),
        interruptAfterTimeLimit: Number(process.env.FUZZ_MS ?? 25_000),
        seed: SEED,
      },
    );
    console.log(`http fuzz (seed ${SEED}): ${statuses.length} requests, statuses ${JSON.stringify(summary(statuses))}`);
    // It reached the routes and every guard: accepted, answered, and each kind of refusal.
    expect(statuses.length).toBeGreaterThan(50);
    for (const status of [200, 202, 400, 403, 404, 405, 415]) expect(statuses).toContain(status);

    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
    for (const { child, event } of held) child.reply({ event, response: `kept ${event.instanceKey}` });
    for (const [index, answer] of (await Promise.all(waiting)).entries()) {
      if (answer instanceof Error) throw answer;
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({
        status: "ok",
        response: `kept ${keys[index]}`,
        instanceKey: keys[index],
      });
    }
    expect(logged.filter((line) => line.includes("http api request failed"))).toEqual([]);
    expect(spawner.violations).toEqual([]);
  }, 60_000);

  it("answers the same way with a token configured", async () => {
    const { orchestrator, spawner } = apiFixture();
    spawner.onSent = (child, message) => {
      if (message.type === "event") queueMicrotask(() => child.reply({ event: message.payload.event }));
    };
    const served = serveHttpApi({
      backend: backendOf(orchestrator),
      host: "127.0.0.1",
      port: 0,
      maxBodyBytes: 4096,
      token: "fuzz-token",
    });
    defer(() => served.stop());
    const statuses: number[] = [];
    await fc.assert(
      fc.asyncProperty(
        shot,
        async (generated) =>
          void statuses.push(
            await fire({ base: `http://127.0.0.1:${served.port}`, port: served.port, shot: generated }),
          ),
      ),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 300),
        interruptAfterTimeLimit: Number(process.env.FUZZ_MS ?? 10_000),
        seed: SEED + 1,
      },
    );
    expect(statuses).toContain(401);
    expect(statuses.filter((status) => status === 200 || status === 202).length).toBeGreaterThan(0);
  }, 40_000);
});

// ---- raw requests that fetch cannot make --------------------------------------------------------------------

/** Writes `text` to the port and reads until the server closes (every raw request asks for `Connection: close`). */
function rawRequest(port: number, text: string | Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = "";
    const socket = connect({ host: "127.0.0.1", port }, () => socket.write(text));
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(
        new Error(
          `no end of answer to ${JSON.stringify(String(text).slice(0, 80))}: ${JSON.stringify(answer.slice(0, 200))}`,
        ),
      );
    });
  });
}

/** Our coded JSON answer, or Bun's own empty 400/414/431/505 for what is not HTTP/1.x (it answers before the API runs). */
function expectCodedOrMalformed(answer: string, sent: string): void {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  const where = `${JSON.stringify(sent.slice(0, 120))} → ${JSON.stringify(answer.slice(0, 300))}`;
  const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
  if (body === "" && !/content-type/i.test(answer) && [400, 414, 431, 505].includes(status)) return;
  expect(status, where).not.toBe(500);
  expect([200, 202, ...Object.keys(CODES).map(Number)], where).toContain(status);
  if (status >= 400 && !sent.startsWith("HEAD "))
    expect(CODES[status], where).toContain((JSON.parse(body) as { error: { code: string } }).error.code);
}

describe("raw HTTP the API may receive", () => {
  it("answers HTTP/1.0 without Host, repeated Hosts, absolute targets, torn chunks and generated request lines, and keeps serving", async () => {
    const { orchestrator } = apiFixture();
    const served = serveHttpApi({ backend: backendOf(orchestrator), host: "127.0.0.1", port: 0, maxBodyBytes: 4096 });
    defer(() => served.stop());
    const close = "Connection: close\r\n";
    const fixed: [string, number][] = [
      ["GET /healthz HTTP/1.0\r\n\r\n", 403],
      ['POST /v1/events HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"input":"x"}', 403],
      [`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: attacker.example\r\n${close}\r\n`, 403],
      [`GET http://attacker.example/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n${close}\r\n`, 200],
      [
        `POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n${close}\r\n5\r\n{"inp\r\n0\r\n\r\n`,
        400,
      ],
      [
        `POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 99999\r\n${close}\r\n{}`,
        413,
      ],
      [`GET /v1/instances/a/%ff%fe/events HTTP/1.1\r\nHost: 127.0.0.1\r\n${close}\r\n`, 404],
    ];
    for (const [text, status] of fixed) {
      const answer = await rawRequest(served.port, text);
      expectCodedOrMalformed(answer, text);
      expect(
        answer.startsWith(`HTTP/1.1 ${status} `),
        `${JSON.stringify(text)} → ${JSON.stringify(answer.slice(0, 200))}`,
      ).toBe(true);
    }
    const line = fc.tuple(
      fc.constantFrom("GET", "GET", "POST", "HEAD", "DELETE", "OPTIONS", "G E T", "", "\u0000"),
      fc.oneof(
        { weight: 3, arbitrary: path },
        { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", maxLength: 60 }) },
      ),
      fc.constantFrom("HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2", "", "HTTP/9.9"),
    );
    const headerName = fc.oneof(
      fc.constantFrom(
        "Origin",
        "Sec-Fetch-Site",
        "Content-Type",
        "Authorization",
        "Host",
        "Content-Length",
        "Transfer-Encoding",
        "Expect",
      ),
      fc.string({ unit: "grapheme-ascii", maxLength: 12 }),
    );
    const extraHeaders = fc.array(fc.tuple(headerName, fc.string({ unit: "grapheme-ascii", maxLength: 30 })), {
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(line, extraHeaders, async ([method, target, version], headers) => {
        const text = `${method} ${target} ${version}\r\nHost: 127.0.0.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join("")}${close}\r\n`;
        expectCodedOrMalformed(await rawRequest(served.port, text), text);
      }),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 200),
        interruptAfterTimeLimit: Number(process.env.FUZZ_MS ?? 10_000),
        seed: SEED + 3,
      },
    );
    expect(await (await fetch(`http://127.0.0.1:${served.port}/healthz`)).json()).toEqual({ status: "ok" });
  }, 40_000);
});

// ---- one pass against a real goondan run ---------------------------------------------------------------------

describe("a real goondan run under fuzz", () => {
  it("keeps serving with real agent children, and answers the events it accepted before", async () => {
    const marker = crypto.randomUUID();
    const run = await serveRealSwarm({
      defer,
      llm: {
        rules: [{ match: { lastUser: `KEEP ${marker}` }, reply: { text: "kept", delayMs: 1500 } }],
        fallback: { text: "fuzzed" },
      },
      env: { GOONDAN_API_ALLOWED_ORIGINS: ALLOWED_ORIGIN },
    });
    const { llm } = run;
    const json = { "content-type": "application/json" };
    const waiting = fetch(`${run.base}/v1/events`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ input: `KEEP ${marker}`, instanceKey: `keep-${marker}`, wait: true }),
    }).catch((error: Error) => error);
    for (const n of [1, 2]) {
      const accepted = await fetch(`${run.base}/v1/events`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ input: `ACCEPTED ${marker} ${n}`, instanceKey: `accepted-${marker}` }),
      });
      expect(accepted.status).toBe(202);
    }
    // Every generated event that would run goes to one of two instances, so the pass spawns a handful of children.
    const aimed = (generated: Shot): Shot => {
      if (typeof generated.body !== "string") return generated;
      try {
        const value = JSON.parse(generated.body) as Record<string, unknown>;
        if (value === null || typeof value !== "object" || Array.isArray(value)) return generated;
        if (typeof value.instanceKey === "string" || value.instanceKey === undefined)
          value.instanceKey = `fuzz-${String(value.instanceKey ?? "").length % 2}`;
        if (value.fresh === true) value.fresh = false; // a fresh restart is a reset the operator asks for, not an input
        return { ...generated, body: JSON.stringify(value) };
      } catch {
        return generated;
      }
    };
    const statuses: number[] = [];
    await fc.assert(
      fc.asyncProperty(
        shot,
        async (generated) =>
          void statuses.push(await fire({ base: run.base, port: run.port, shot: generated, adjust: aimed })),
      ),
      {
        numRuns: Number(process.env.FUZZ_REAL_RUNS ?? 120),
        interruptAfterTimeLimit: Number(process.env.FUZZ_MS ?? 20_000),
        seed: SEED + 2,
      },
    );
    console.log(
      `http fuzz against goondan run (seed ${SEED + 2}): ${statuses.length} requests, statuses ${JSON.stringify(summary(statuses))}`,
    );
    expect(statuses.length).toBeGreaterThan(20);
    expect(await (await fetch(`${run.base}/healthz`)).json()).toEqual({ status: "ok" });
    const kept = await waiting;
    if (kept instanceof Error) throw kept;
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ status: "ok", response: "kept" });
    await until(
      () =>
        [1, 2].every((n) => llm.requests.some((request) => lastUserText(request).includes(`ACCEPTED ${marker} ${n}`))),
      { timeoutMs: 20_000 },
    );
    expect(run.proc.exitCode).toBeNull();
    expect(run.lines.filter((line) => line.msg === "http api request failed")).toEqual([]);
  }, 90_000);
});
