import { beforeAll, describe, expect, it } from "bun:test";
import { evaluatePath, parsePath } from "../../src/base/tools/json-path.ts";
import { baseTools, errorOf, okOutput, type BaseToolHarness } from "./base-tools.ts";

let tools: BaseToolHarness;
const data = {
  users: [
    { name: "ada", age: 36, tags: ["math", "code"], owner: { name: "x" } },
    { name: "bob", age: 41, tags: ["ops"], owner: { name: "y" } },
  ],
  "odd key": { x: 1 },
};

beforeAll(async () => {
  tools = await baseTools();
});

describe("json-query__query", () => {
  it("reads dotted and bracketed paths", async () => {
    expect(okOutput(await tools.call("json-query__query", { data, path: "users[0].name" }))).toEqual({
      path: "users[0].name",
      found: true,
      value: "ada",
    });
    expect(okOutput(await tools.call("json-query__query", { data, path: "$.users[-1].age" })).value).toBe(41);
    expect(okOutput(await tools.call("json-query__query", { data, path: '["odd key"].x' })).value).toBe(1);
    expect(okOutput(await tools.call("json-query__query", { data, path: "" })).value).toEqual(data);
  });

  it("collects every match of a [*] or .* wildcard into a list", async () => {
    expect(okOutput(await tools.call("json-query__query", { data, path: "users[*].name" })).value).toEqual([
      "ada",
      "bob",
    ]);
    expect(okOutput(await tools.call("json-query__query", { data, path: "users[*].tags[*]" })).value).toEqual([
      "math",
      "code",
      "ops",
    ]);
    expect(okOutput(await tools.call("json-query__query", { data, path: "users[0].owner.*" })).value).toEqual(["x"]);
  });

  it("accepts JSON text instead of a value", async () => {
    expect(okOutput(await tools.call("json-query__query", { json: '{"a":{"b":[10,20]}}', path: "a.b[1]" })).value).toBe(
      20,
    );
  });

  it("says found: false for a missing path", async () => {
    expect(okOutput(await tools.call("json-query__query", { data, path: "users[5].name" }))).toEqual({
      path: "users[5].name",
      found: false,
      value: null,
    });
  });

  it("refuses malformed paths, bad JSON text, and missing or doubled input", async () => {
    expect(errorOf(await tools.call("json-query__query", { data, path: "users[abc" })).code).toBe("E_JSON_QUERY_PATH");
    expect(errorOf(await tools.call("json-query__query", { data, path: "users[]" })).code).toBe("E_JSON_QUERY_PATH");
    expect(errorOf(await tools.call("json-query__query", { json: "{oops", path: "a" })).code).toBe(
      "E_JSON_QUERY_PARSE",
    );
    expect(errorOf(await tools.call("json-query__query", { path: "a" })).code).toBe("E_JSON_QUERY_INPUT");
    expect(errorOf(await tools.call("json-query__query", { data, json: "{}", path: "a" })).code).toBe(
      "E_JSON_QUERY_INPUT",
    );
    expect(errorOf(await tools.call("json-query__query", { data, path: 5 })).code).toBe("E_TOOL_INVALID_ARGS");
  });

  it("does not read inherited properties", async () => {
    expect(okOutput(await tools.call("json-query__query", { data: {}, path: "constructor" })).found).toBe(false);
    expect(okOutput(await tools.call("json-query__query", { data: {}, path: "__proto__" })).found).toBe(false);
  });
});

describe("json-query__pick, count and flatten", () => {
  it("picks paths from an object or from each object of an array", async () => {
    expect(
      okOutput(await tools.call("json-query__pick", { data: data.users[0], paths: ["name", "owner.name", "missing"] }))
        .value,
    ).toEqual({ name: "ada", "owner.name": "x" });
    expect(okOutput(await tools.call("json-query__pick", { data: data.users, paths: ["name"] })).value).toEqual([
      { name: "ada" },
      { name: "bob" },
    ]);
  });

  it("counts items, keys and characters", async () => {
    expect(okOutput(await tools.call("json-query__count", { data, path: "users" }))).toEqual({ count: 2, of: "items" });
    expect(okOutput(await tools.call("json-query__count", { data, path: "users[0]" }))).toEqual({
      count: 4,
      of: "keys",
    });
    expect(okOutput(await tools.call("json-query__count", { data, path: "users[0].name" }))).toEqual({
      count: 3,
      of: "characters",
    });
    expect(errorOf(await tools.call("json-query__count", { data, path: "users[0].age" })).code).toBe(
      "E_JSON_QUERY_NOT_COUNTABLE",
    );
    expect(errorOf(await tools.call("json-query__count", { data, path: "nope" })).code).toBe("E_JSON_QUERY_NOT_FOUND");
  });

  it("flattens nested arrays by depth", async () => {
    expect(okOutput(await tools.call("json-query__flatten", { data: [1, [2, [3, [4]]]] }))).toEqual({
      value: [1, 2, [3, [4]]],
      count: 3,
    });
    expect(okOutput(await tools.call("json-query__flatten", { data: [1, [2, [3, [4]]]], depth: 3 })).value).toEqual([
      1, 2, 3, 4,
    ]);
    expect(errorOf(await tools.call("json-query__flatten", { data: { a: 1 } })).code).toBe("E_JSON_QUERY_NOT_ARRAY");
  });
});

describe("the path language", () => {
  it("parses each segment kind", () => {
    expect(parsePath("$.a[0][*].b['c d'][-2]")).toEqual([
      { kind: "key", key: "a" },
      { kind: "index", index: 0 },
      { kind: "wildcard" },
      { kind: "key", key: "b" },
      { kind: "key", key: "c d" },
      { kind: "index", index: -2 },
    ]);
  });

  it("evaluates a wildcard over object values", () => {
    expect(evaluatePath({ a: { x: 1, y: 2 } }, parsePath("a.*"))).toEqual({ matches: [1, 2], wildcard: true });
  });
});
