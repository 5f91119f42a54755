/**
 * The built-in tools take every parameter the public Goondan project's tools take (bash aside, owned by its
 * own change), with its meaning: a call written for those tools validates here and does what it does
 * there. PUBLIC_PARAMETERS is that project's tool surface as read from its base package: per export, each
 * parameter's JSON type, and the required ones.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtemp, mkdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonObject } from "../../src/shared/json.ts";
import { RuntimeClient } from "../../src/agent/child/runtime-client.ts";
import type { ChildMessage } from "../../src/protocol/ipc-messages.ts";
import { fakeRuntime } from "../tools/helpers.ts";
import { baseToolResources, baseTools, errorOf, okOutput, type BaseToolHarness } from "./base-tools.ts";

type JsonType = "string" | "number" | "boolean" | "object" | "array" | "any";
interface PublicExport {
  parameters: Record<string, JsonType | JsonType[]>;
  required: string[];
}

const PUBLIC_PARAMETERS: Record<string, PublicExport> = {
  wait__seconds: { parameters: { seconds: "number" }, required: ["seconds"] },
  "file-system__read": { parameters: { path: "string", maxBytes: "number" }, required: ["path"] },
  "file-system__write": {
    parameters: { path: "string", content: "string", append: "boolean" },
    required: ["path", "content"],
  },
  "file-system__list": {
    parameters: { path: "string", recursive: "boolean", includeDirs: "boolean", includeFiles: "boolean" },
    required: [],
  },
  "file-system__mkdir": { parameters: { path: "string", recursive: "boolean" }, required: ["path"] },
  agents__request: {
    parameters: {
      target: "string",
      input: "string",
      instanceKey: "string",
      eventType: "string",
      timeoutMs: "number",
      async: "boolean",
      metadata: "object",
    },
    required: ["target", "input"],
  },
  agents__send: {
    parameters: { target: "string", input: "string", instanceKey: "string", eventType: "string", metadata: "object" },
    required: ["target", "input"],
  },
  agents__spawn: { parameters: { target: "string", instanceKey: "string", cwd: "string" }, required: ["target"] },
  agents__list: { parameters: { includeAll: "boolean" }, required: [] },
  agents__catalog: { parameters: {}, required: [] },
  "self-restart__request": { parameters: { reason: "string" }, required: [] },
  "http-fetch__get": {
    parameters: { url: "string", headers: "object", timeoutMs: "number", maxBytes: "number" },
    required: ["url"],
  },
  "http-fetch__post": {
    parameters: {
      url: "string",
      body: "object",
      bodyString: "string",
      headers: "object",
      timeoutMs: "number",
      maxBytes: "number",
    },
    required: ["url"],
  },
  "json-query__query": { parameters: { data: "string", path: "string" }, required: ["data"] },
  "json-query__pick": { parameters: { data: "string", keys: "array" }, required: ["data", "keys"] },
  "json-query__count": { parameters: { data: "string", path: "string" }, required: ["data"] },
  "json-query__flatten": { parameters: { data: "string", depth: "number" }, required: ["data"] },
  "text-transform__replace": {
    parameters: { text: "string", search: "string", replacement: "string", all: "boolean" },
    required: ["text", "search"],
  },
  "text-transform__slice": { parameters: { text: "string", start: "number", end: "number" }, required: ["text"] },
  "text-transform__split": {
    parameters: { text: "string", delimiter: "string", maxParts: "number" },
    required: ["text"],
  },
  "text-transform__join": { parameters: { parts: "array", delimiter: "string" }, required: ["parts"] },
  "text-transform__trim": { parameters: { text: "string", mode: "string" }, required: ["text"] },
  "text-transform__case": { parameters: { text: "string", to: "string" }, required: ["text", "to"] },
};

/** The JSON types a property schema accepts (`integer` counts as a number only for whole values, so not here). */
function acceptedTypes(schema: JsonObject | undefined): Set<string> {
  if (schema === undefined) return new Set();
  if (schema.type === undefined) return new Set(["any"]);
  return new Set([schema.type].flat().map(String));
}

describe("the public Goondan tool surface", () => {
  const exports = new Map<string, JsonObject>(
    baseToolResources().flatMap((tool) =>
      tool.spec.exports.map((item) => [`${tool.metadata.name}__${item.name}`, item.parameters] as const),
    ),
  );

  for (const [name, publicExport] of Object.entries(PUBLIC_PARAMETERS)) {
    it(`${name} takes every parameter of the public tool, with a type at least as wide, and requires no more`, () => {
      const parameters = exports.get(name);
      expect(parameters).toBeDefined();
      const properties = (parameters?.properties ?? {}) as Record<string, JsonObject>;
      for (const [parameter, type] of Object.entries(publicExport.parameters)) {
        const accepted = acceptedTypes(properties[parameter]);
        for (const wanted of [type].flat())
          expect({ parameter, accepts: accepted.has("any") || accepted.has(wanted) }).toEqual({
            parameter,
            accepts: true,
          });
      }
      for (const required of (parameters?.required ?? []) as string[])
        expect(publicExport.required).toContain(required);
    });
  }
});

let workdir: string;
let tools: BaseToolHarness;

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), "goondan-public-params-"));
  tools = await baseTools({ context: { workdir } });
});

afterAll(async () => {
  await rm(workdir, { recursive: true, force: true });
});

describe("file-system with the public parameters", () => {
  it("lists only files, or only directories, also when walking recursively", async () => {
    await mkdir(join(workdir, "tree/sub"), { recursive: true });
    await writeFile(join(workdir, "tree/a.txt"), "a");
    await writeFile(join(workdir, "tree/sub/b.txt"), "b");
    const paths = async (args: JsonObject) =>
      (okOutput(await tools.call("file-system__list", { path: "tree", ...args })).entries as { path: string }[]).map(
        (entry) => entry.path,
      );
    expect(await paths({ recursive: true, includeDirs: false })).toEqual(["a.txt", "sub/b.txt"]);
    expect(await paths({ recursive: true, includeFiles: false })).toEqual(["sub"]);
    expect(await paths({ includeDirs: true, includeFiles: true })).toEqual(["a.txt", "sub"]);
  });

  it("creates a directory without its parents only when recursive is false and the parent exists", async () => {
    const error = errorOf(await tools.call("file-system__mkdir", { path: "none/yet", recursive: false }));
    expect(error.code).toBe("E_FS_NOT_FOUND");
    expect(await stat(join(workdir, "none")).catch(() => undefined)).toBeUndefined();
    await mkdir(join(workdir, "there"));
    expect(okOutput(await tools.call("file-system__mkdir", { path: "there/now", recursive: false }))).toEqual({
      path: "there/now",
      created: true,
      recursive: false,
    });
  });

  it("reads at most a fractional maxBytes rounded down", async () => {
    await writeFile(join(workdir, "ten.txt"), "0123456789");
    expect(okOutput(await tools.call("file-system__read", { path: "ten.txt", maxBytes: 3.7 })).content).toBe("012");
  });
});

describe("http-fetch with the public parameters", () => {
  let server: ReturnType<typeof Bun.serve>;
  let open: BaseToolHarness;
  beforeAll(async () => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) =>
        Response.json({
          body: await request.text(),
          contentType: request.headers.get("content-type"),
          retries: request.headers.get("x-retries"),
          dry: request.headers.get("x-dry"),
        }),
    });
    open = await baseTools({ config: { "http-fetch": { allowPrivateNetwork: true } } });
  });
  afterAll(() => server.stop(true));
  const url = () => `http://127.0.0.1:${server.port}/echo`;

  it("posts bodyString as the raw body, and body instead of it when both are given", async () => {
    expect(
      okOutput(
        await open.call("http-fetch__post", {
          url: url(),
          bodyString: "a=1&b=2",
          contentType: "application/x-www-form-urlencoded",
        }),
      ).json,
    ).toMatchObject({ body: "a=1&b=2", contentType: "application/x-www-form-urlencoded" });
    expect(
      okOutput(await open.call("http-fetch__post", { url: url(), body: { a: 1 }, bodyString: "ignored" })).json,
    ).toMatchObject({ body: '{"a":1}', contentType: "application/json" });
  });

  it("sends number and boolean header values as text", async () => {
    expect(
      okOutput(await open.call("http-fetch__get", { url: url(), headers: { "x-retries": 3, "x-dry": false } })).json,
    ).toMatchObject({ retries: "3", dry: "false" });
  });

  it("takes the public default maxBytes of 500000 and keeps at most 250000", async () => {
    const output = okOutput(await open.call("http-fetch__get", { url: url(), maxBytes: 500_000, timeoutMs: 5000.5 }));
    expect(output.status).toBe(200);
  });
});

describe("json-query with the public parameters", () => {
  const text = JSON.stringify({
    user: { name: "ada", tags: ["x", "y"] },
    items: [
      [1, 2],
      [3, [4]],
    ],
    id: 7,
  });

  it("reads a string data as JSON text, with . or no path for the whole value", async () => {
    expect(okOutput(await tools.call("json-query__query", { data: text, path: "user.name" })).value).toBe("ada");
    expect(okOutput(await tools.call("json-query__query", { data: text, path: "user.tags.1" })).value).toBe("y");
    expect(okOutput(await tools.call("json-query__query", { data: text, path: "." })).value).toEqual(JSON.parse(text));
    expect(okOutput(await tools.call("json-query__query", { data: text })).found).toBe(true);
    expect(errorOf(await tools.call("json-query__query", { data: "not json" })).code).toBe("E_JSON_QUERY_PARSE");
  });

  it("picks top-level keys", async () => {
    expect(
      okOutput(await tools.call("json-query__pick", { data: text, keys: ["id", "user", "missing"] })).value,
    ).toEqual({ id: 7, user: { name: "ada", tags: ["x", "y"] } });
    expect(errorOf(await tools.call("json-query__pick", { data: text })).code).toBe("E_JSON_QUERY_INPUT");
  });

  it("counts and flattens JSON text", async () => {
    expect(okOutput(await tools.call("json-query__count", { data: text, path: "user.tags" })).count).toBe(2);
    expect(
      okOutput(
        await tools.call("json-query__flatten", {
          data: JSON.stringify([
            [1, 2],
            [3, [4]],
          ]),
          depth: 1,
        }),
      ).value,
    ).toEqual([1, 2, 3, [4]]);
  });
});

describe("text-transform with the public parameters", () => {
  it("replaces the first occurrence of search literally, or every one with all, and defaults replacement to empty", async () => {
    expect(
      okOutput(await tools.call("text-transform__replace", { text: "a.b.c", search: ".", replacement: "-" })),
    ).toEqual({ text: "a-b.c", replacements: 1 });
    expect(
      okOutput(
        await tools.call("text-transform__replace", { text: "a.b.c", search: ".", replacement: "-", all: true }),
      ),
    ).toEqual({ text: "a-b-c", replacements: 2 });
    expect(okOutput(await tools.call("text-transform__replace", { text: "a.b.c", search: "." }))).toEqual({
      text: "ab.c",
      replacements: 1,
    });
    expect(errorOf(await tools.call("text-transform__replace", { text: "a" })).code).toBe("E_TEXT_EMPTY_PATTERN");
  });

  it("slices from 0 by default", async () => {
    expect(okOutput(await tools.call("text-transform__slice", { text: "hello", end: 2 })).text).toBe("he");
  });

  it("splits at delimiter, by default at newlines, keeping maxParts", async () => {
    expect(okOutput(await tools.call("text-transform__split", { text: "a\nb\nc" })).parts).toEqual(["a", "b", "c"]);
    expect(
      okOutput(await tools.call("text-transform__split", { text: "a|b|c", delimiter: "|", maxParts: 2 })).parts,
    ).toEqual(["a", "b"]);
  });

  it("joins with delimiter, by default a newline, writing numbers and booleans as text", async () => {
    expect(okOutput(await tools.call("text-transform__join", { parts: ["a", 1, true] })).text).toBe("a\n1\ntrue");
    expect(okOutput(await tools.call("text-transform__join", { parts: ["a", "b"], delimiter: "+" })).text).toBe("a+b");
  });

  it("trims one side with mode", async () => {
    expect(okOutput(await tools.call("text-transform__trim", { text: "  x  ", mode: "end" })).text).toBe("  x");
  });
});

describe("agents with the public parameters", () => {
  it("hands eventType and metadata of request and send to the runtime", async () => {
    const { runtime, calls } = fakeRuntime({
      request: () => ({ agent: "w", instanceKey: "k", correlationId: "c", status: "ok", response: "done" }),
      send: () => ({ eventId: "e" }),
    });
    const agents = await baseTools({ context: { runtime } });
    okOutput(
      await agents.call("agents__request", {
        target: "w",
        input: "go",
        eventType: "task.assigned",
        metadata: { ticket: 42 },
        timeoutMs: 1500.9,
      }),
    );
    okOutput(
      await agents.call("agents__send", { target: "w", input: "fyi", eventType: "note", metadata: { from: "lead" } }),
    );
    expect(calls).toEqual([
      {
        method: "request",
        options: {
          target: "w",
          input: "go",
          timeoutMs: 1500,
          eventType: "task.assigned",
          metadata: { ticket: 42 },
          async: false,
        },
      },
      { method: "send", options: { target: "w", input: "fyi", eventType: "note", metadata: { from: "lead" } } },
    ]);
  });

  it("hands spawn's cwd and list's includeAll to the runtime", async () => {
    const { runtime, calls } = fakeRuntime({
      spawn: () => ({ agent: "w", instanceKey: "k", status: "idle" }),
      list: () => ({ instances: [] }),
    });
    const agents = await baseTools({ context: { runtime } });
    okOutput(await agents.call("agents__spawn", { target: "w", instanceKey: "k", cwd: "jobs/7" }));
    okOutput(await agents.call("agents__list", { includeAll: true }));
    expect(calls).toEqual([
      { method: "spawn", options: { target: "w", instanceKey: "k", cwd: "jobs/7" } },
      { method: "list", options: { includeAll: true } },
    ]);
  });

  it("puts them in the runtime_call the agent process sends to the orchestrator", async () => {
    const sent: ChildMessage[] = [];
    let counter = 0;
    const ids = (prefix: string) => `${prefix}_${++counter}`;
    const channel = new RuntimeClient({
      address: "lead/main",
      send: (message) => void sent.push(message),
      onUnclaimedResult: () => {},
      ids,
    });
    const client = channel.scoped({ callChain: ["lead"] });
    const outcomes = [
      client.send({ target: "w", input: "fyi", eventType: "note", metadata: { a: 1 } }),
      client.spawn({ target: "w", cwd: "jobs/7" }),
      client.list({ includeAll: true }),
      client.request({ target: "w", input: "go", eventType: "task.assigned", async: true }),
    ].map((call: Promise<unknown>) =>
      call.then(
        () => "answered",
        (error: { code?: string }) => error.code,
      ),
    );
    const args = sent.map((message) => (message.payload as { method: string; args: JsonObject }).args);
    expect(args).toEqual([
      { target: "w", input: "fyi", correlationId: "corr_1", metadata: { a: 1 }, eventType: "note" },
      { target: "w", cwd: "jobs/7" },
      { includeAll: true },
      { target: "w", input: "go", correlationId: "corr_5", timeoutMs: 60000, async: true, eventType: "task.assigned" },
    ]);
    channel.failAll("test over");
    expect(await Promise.all(outcomes)).toEqual(Array(4).fill("E_RUNTIME_DISCONNECTED"));
  });
});
