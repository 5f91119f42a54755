/**
 * What issues say: expected vs found, suggestions (existing names closest first, the kind meant), line
 * and column, warnings that keep a bundle valid, and every issue of a bundle reported at once.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { readFileSync, symlinkSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { loadBundle, loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import { findResource, readSystemPrompt } from "../../src/config/resolve.ts";
import { MAX_PROMPT_BYTES } from "../../src/config/prompt-file.ts";
import { mkdirSync, rmSync, truncateSync } from "node:fs";
import { ISSUE_CODES } from "../../src/config/issue-codes.ts";
import { AGENT, MODEL, SWARM, TOOL, baseBundle, docs, header, removeBundles, writeBundle } from "./temp-bundle.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

afterAll(removeBundles);

const agentWith = (spec: string) => `${header("Agent", "a")}spec:\n  modelConfig: { modelRef: Model/m }\n${spec}`;

describe("issue messages and suggestions", () => {
  it("names the missing ref and lists the defined names, closest first", async () => {
    const extraTools = ["bash-local", "echo-all", "ech"].map(
      (name) => `${header("Tool", name)}spec: { entry: ./tools/echo.ts, exports: [{ name: say }] }\n`,
    );
    const dir = writeBundle(
      baseBundle({
        agent: agentWith("  prompt: { system: hi }\n  tools: [Tool/echo, Tool/echoo]\n"),
        extra: extraTools,
      }),
    );
    const [issue] = (await loadBundle(dir, { checkModules: false })).errors;
    expect(issue).toMatchObject({
      code: "E_CONFIG_REF_NOT_FOUND",
      path: "goondan.yaml#2.spec.tools[1]",
      message: "Tool/echoo not found",
    });
    expect(issue?.suggestion).toStartWith("did you mean Tool/echo?; defined tools: ");
    const names = issue?.suggestion?.split("defined tools: ")[1]?.split(", ") ?? [];
    expect(names.slice(0, 3)).toEqual(["echo", "ech", "echo-all"]);
    expect(names).toContain("bash"); // built-ins count as defined tools
  });

  it("names a missing prompt file once, without stuttering", async () => {
    const dir = writeBundle(baseBundle({ agent: agentWith("  prompt: { systemRef: ./prompts/missing.md }\n") }));
    const [issue] = (await loadBundle(dir, { checkModules: false })).errors;
    expect(issue?.code).toBe("E_CONFIG_PROMPT_NOT_FOUND");
    expect(issue?.message).toStartWith("expected the prompt file ./prompts/missing.md to exist");
    expect(issue?.message).not.toContain("file file");
  });

  it("answers a ref to the wrong kind with the resources of the expected kind that exist", async () => {
    const extraTool = `${header("Tool", "search")}spec: { entry: ./tools/echo.ts, exports: [{ name: say }] }\n`;
    const dir = writeBundle(
      baseBundle({ agent: agentWith("  prompt: { system: hi }\n  tools: [Tool/echo, Model/m]\n"), extra: [extraTool] }),
    );
    const [issue] = (await loadBundle(dir, { checkModules: false })).errors;
    expect(issue).toMatchObject({ code: "E_CONFIG_REF_KIND", path: "goondan.yaml#2.spec.tools[1]" });
    expect(issue?.suggestion).not.toContain("Tool/m");
    expect(issue?.suggestion).toContain("Tool/echo");
    expect(issue?.suggestion).toContain("Tool/search");
    expect(issue?.suggestion).toContain("Tool/bash"); // built-ins can be referenced too
  });

  it("lists the existing Agents for an entryAgent written as a Model ref", async () => {
    const dir = writeBundle(
      baseBundle({ swarm: `${header("Swarm", "s")}spec: { entryAgent: Model/m, agents: [Agent/a] }\n` }),
    );
    const [issue] = (await loadBundle(dir, { checkModules: false })).errors;
    expect(issue).toMatchObject({ code: "E_CONFIG_REF_KIND", path: "goondan.yaml#3.spec.entryAgent" });
    expect(issue?.suggestion).toContain("Agent/a");
    expect(issue?.suggestion).not.toContain("Agent/m");
  });

  it("suggests the kind that was meant", async () => {
    const dir = writeBundle({
      "goondan.yaml": docs(MODEL, "apiVersion: goondan.ai/v1\nkind: Agnet\nmetadata: { name: a }\nspec: {}"),
    });
    const [issue] = (await loadBundle(dir)).errors;
    expect(issue?.code).toBe("E_CONFIG_UNKNOWN_KIND");
    expect(issue?.suggestion).toBe("did you mean Agent?");
    expect(issue?.message).toContain('found "Agnet"');
  });

  it("says which fields are allowed when it finds an unknown one", async () => {
    const dir = writeBundle(baseBundle({ agent: agentWith("  prompt: { system: hi }\n  tool: [Tool/echo]\n") }));
    const [issue] = (await loadBundle(dir)).errors;
    expect(issue?.path).toBe("goondan.yaml#2.spec.tool");
    expect(issue?.message).toContain('found unknown field "tool"');
    expect(issue?.message).toContain("tools");
  });

  it("says expected vs found for lists, numbers and types", async () => {
    const swarm = `${header("Swarm", "s")}spec: { entryAgent: Agent/a, agents: [], policy: { maxStepsPerTurn: 0, shutdown: "soon" } }\n`;
    const result = await loadBundle(writeBundle(baseBundle({ swarm })));
    expect(result.errors.map((issue) => [issue.path, issue.message])).toEqual([
      ["goondan.yaml#3.spec.agents", "expected at least 1 item(s), found []"],
      ["goondan.yaml#3.spec.policy.maxStepsPerTurn", "expected a number >= 1, found 0"],
      ["goondan.yaml#3.spec.policy.shutdown", 'expected a mapping, found "soon"'],
    ]);
  });

  it("gives YAML errors with their line and column", async () => {
    const dir = writeBundle({
      "goondan.yaml": docs(MODEL, "apiVersion: goondan.ai/v1\nkind: Tool\nmetadata: [oops\n"),
    });
    const [issue] = (await loadBundle(dir)).errors;
    expect(issue?.code).toBe("E_CONFIG_PARSE_ERROR");
    expect(issue?.line).toBeGreaterThanOrEqual(8);
    expect(issue?.message).toMatch(/line \d+, column \d+/);
  });

  it("points schema issues at the line and column of the offending node", async () => {
    const dir = writeBundle(baseBundle({ model: `${header("Model", "m")}spec:\n  provider: mistral\n  model: x\n` }));
    const [issue] = (await loadBundle(dir)).errors;
    expect(issue).toMatchObject({ path: "goondan.yaml#0.spec.provider", line: 6, column: 13 });
    expect(issue?.message).toBe(
      'expected one of "anthropic", "openai", "google", "openai-compatible", "replay", found "mistral"',
    );
  });

  it("points at the field's key when its value starts on a later line, and at the key of an unknown field", async () => {
    const dir = writeBundle(
      baseBundle({ agent: agentWith("  prompt: { system: hi }\n  tools:\n    first: Tool/echo\n  extensionz: []\n") }),
    );
    const issues = (await loadBundle(dir, { checkModules: false })).errors;
    const lines = readFileSync(join(dir, "goondan.yaml"), "utf8").split("\n");
    const at = (path: string) => issues.find((issue) => issue.path === path);
    const tools = at("goondan.yaml#2.spec.tools");
    expect(lines[(tools?.line ?? 0) - 1]?.slice((tools?.column ?? 0) - 1)).toBe("tools:");
    const unknown = at("goondan.yaml#2.spec.extensionz");
    expect(lines[(unknown?.line ?? 0) - 1]?.slice((unknown?.column ?? 0) - 1)).toBe("extensionz: []");
    expect(unknown?.suggestion).toBe('did you mean "extensions"?');
  });

  it("rejects an alias to an anchor of another document", async () => {
    const dir = writeBundle({
      "goondan.yaml": docs(
        `${MODEL}  options: &opts { a: 1 }`,
        `${header("Model", "n")}spec:\n  provider: openai\n  model: x\n  options: *opts\n`,
      ),
    });
    expect((await loadBundle(dir)).errors.map((issue) => [issue.code, issue.path])).toEqual([
      ["E_CONFIG_PARSE_ERROR", "goondan.yaml#1"],
    ]);
  });

  it("stops alias bombs instead of expanding them", async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let level = 1; level < 8; level++)
      levels.push(
        `${String.fromCharCode(97 + level)}: &${String.fromCharCode(97 + level)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + level)}`)
          .join(",")}]`,
      );
    const dir = writeBundle({ "goondan.yaml": `${levels.join("\n")}\n` });
    const result = await loadBundle(dir);
    expect(result.errors.map((issue) => issue.code)).toEqual(["E_CONFIG_PARSE_ERROR"]);
  });

  it("refuses an entry that is a symlink leaving the bundle", async () => {
    const outside = writeBundle({ "echo.ts": "export const handlers = { say: () => 1 };\n" });
    const files = baseBundle();
    const linked = writeBundle({
      ...files,
      "goondan.yaml": files["goondan.yaml"]!.replace("./tools/echo.ts", "./link.ts"),
    });
    symlinkSync(join(outside, "echo.ts"), join(linked, "link.ts"));
    expect((await loadBundle(linked)).errors.map((issue) => [issue.code, issue.path])).toEqual([
      ["E_CONFIG_ENTRY_OUTSIDE_BUNDLE", "goondan.yaml#1.spec.entry"],
    ]);
  });
});

describe("warnings", () => {
  it("keeps a bundle valid when a handler has no export", async () => {
    const dir = writeBundle(
      baseBundle({ files: { "tools/echo.ts": "export const handlers = { say: () => 1, shout: () => 2 };\n" } }),
    );
    const result = await loadBundle(dir);
    expect(result.valid).toBe(true);
    expect(result.warnings.map((issue) => [issue.code, issue.path, issue.severity])).toEqual([
      ["W_CONFIG_HANDLER_UNUSED", "goondan.yaml#1.spec.exports", "warning"],
    ]);
  });

  it("warns about an Agent without a system prompt", async () => {
    const dir = writeBundle(baseBundle({ agent: agentWith("  tools: [Tool/echo]\n") }));
    const result = await loadBundle(dir);
    expect(result.valid).toBe(true);
    expect(result.warnings.map((issue) => [issue.code, issue.path])).toEqual([
      ["W_CONFIG_PROMPT_MISSING", "goondan.yaml#2.spec"],
    ]);
  });

  it("warns about requiredTools the agent's Tools do not export", async () => {
    const dir = writeBundle(
      baseBundle({
        agent: agentWith("  prompt: { system: hi }\n  tools: [Tool/echo]\n  requiredTools: [echo__say, echo__shout]\n"),
      }),
    );
    const result = await loadBundle(dir);
    expect(result.valid).toBe(true);
    expect(result.warnings.map((issue) => [issue.code, issue.path])).toEqual([
      ["W_CONFIG_REQUIRED_TOOL_UNKNOWN", "goondan.yaml#2.spec.requiredTools[1]"],
    ]);
  });

  it("warns when a replay cassette does not exist yet", async () => {
    const model = `${header("Model", "m")}spec: { provider: replay, model: demo, options: { cassette: ./cassettes/new.jsonl } }\n`;
    const result = await loadBundle(writeBundle(baseBundle({ model })));
    expect(result.valid).toBe(true);
    expect(result.warnings.map((issue) => [issue.code, issue.path])).toEqual([
      ["W_CONFIG_CASSETTE_MISSING", "goondan.yaml#0.spec.options.cassette"],
    ]);
  });
});

describe("files that are not regular files", () => {
  it("names a FIFO as a FIFO and returns without waiting for a writer", async () => {
    const dir = writeBundle({ "README.md": "a bundle whose goondan.yaml is a named pipe" });
    expect(spawnSync("mkfifo", [join(dir, "goondan.yaml")]).status).toBe(0);
    const result = await loadBundle(dir, { checkModules: false });
    expect(result.errors.map((issue) => [issue.code, issue.path])).toEqual([["E_FILE_NOT_FOUND", "goondan.yaml"]]);
    expect(result.errors[0]?.message).toContain("FIFO");
    expect(result.errors[0]?.message).not.toContain("directory");
  }, 2000);

  it("names a symlink to /dev/urandom as a character device and never reads it", async () => {
    const dir = writeBundle({ "README.md": "a bundle whose goondan.yaml is an endless device" });
    symlinkSync("/dev/urandom", join(dir, "goondan.yaml"));
    const result = await loadBundle(dir, { checkModules: false });
    expect(result.errors.map((issue) => [issue.code, issue.path])).toEqual([["E_FILE_NOT_FOUND", "goondan.yaml"]]);
    expect(result.errors[0]?.message).toContain("character device");
  }, 2000);

  it("names a Tool entry or prompt file that is a FIFO as a FIFO", async () => {
    const dir = writeBundle(
      baseBundle({
        agent: agentWith("  prompt: { systemRef: ./prompts/system.md }\n"),
        files: { "tools/echo.ts": "" },
      }),
    );
    rmSync(join(dir, "tools/echo.ts"));
    mkdirSync(join(dir, "prompts"));
    for (const path of ["tools/echo.ts", "prompts/system.md"])
      expect(spawnSync("mkfifo", [join(dir, path)]).status).toBe(0);
    const result = await loadBundle(dir, { checkModules: false });
    expect(result.errors.map((issue) => [issue.code, issue.path])).toEqual([
      ["E_CONFIG_ENTRY_NOT_FOUND", "goondan.yaml#1.spec.entry"],
      ["E_CONFIG_PROMPT_NOT_FOUND", "goondan.yaml#2.spec.prompt.systemRef"],
    ]);
    for (const issue of result.errors) expect(issue.message).toContain("FIFO");
  }, 2000);

  it("still names a directory as a directory", async () => {
    const dir = writeBundle({ "goondan.yaml/keep": "" });
    const [issue] = (await loadBundle(dir, { checkModules: false })).errors;
    expect(issue?.message).toContain("found a directory");
  });
});

describe("prompt files", () => {
  const promptAgent = agentWith("  prompt: { systemRef: ./prompts/system.md }\n");

  it("refuses a prompt file over 1 MiB with its own code", async () => {
    const dir = writeBundle(baseBundle({ agent: promptAgent, files: { "prompts/system.md": "" } }));
    truncateSync(join(dir, "prompts/system.md"), 20 * 1024 * 1024);
    const result = await loadBundle(dir, { checkModules: false });
    expect(result.errors.map((issue) => [issue.code, issue.path])).toEqual([
      ["E_CONFIG_PROMPT_TOO_LARGE", "goondan.yaml#2.spec.prompt.systemRef"],
    ]);
    expect(result.errors[0]?.message).toContain(String(MAX_PROMPT_BYTES));
  });

  it("accepts a prompt file of exactly 1 MiB", async () => {
    const dir = writeBundle(
      baseBundle({ agent: promptAgent, files: { "prompts/system.md": "x".repeat(MAX_PROMPT_BYTES) } }),
    );
    expect((await loadBundle(dir, { checkModules: false })).errors).toEqual([]);
  });

  it("refuses a prompt file that grew past the cap after validation when the agent reads it", async () => {
    const dir = writeBundle(baseBundle({ agent: promptAgent, files: { "prompts/system.md": "You are terse.\n" } }));
    const bundle = await loadBundleOrThrow(dir, { checkModules: false });
    const agent = findResource(bundle, "Agent", "a")!;
    expect(await readSystemPrompt(bundle, agent)).toBe("You are terse.\n");
    truncateSync(join(dir, "prompts/system.md"), MAX_PROMPT_BYTES + 1);
    await expect(readSystemPrompt(bundle, agent)).rejects.toMatchObject({ code: "E_CONFIG_PROMPT_TOO_LARGE" });
  });

  it("refuses a prompt file replaced by a FIFO without blocking on it", async () => {
    const dir = writeBundle(baseBundle({ agent: promptAgent, files: { "prompts/system.md": "You are terse.\n" } }));
    const bundle = await loadBundleOrThrow(dir, { checkModules: false });
    rmSync(join(dir, "prompts/system.md"));
    expect(spawnSync("mkfifo", [join(dir, "prompts/system.md")]).status).toBe(0);
    await expect(readSystemPrompt(bundle, findResource(bundle, "Agent", "a")!)).rejects.toMatchObject({
      code: "E_CONFIG_PROMPT_NOT_FOUND",
    });
  }, 2000);
});

describe("all issues at once", () => {
  it("collects every error of a bundle before returning", async () => {
    const dir = writeBundle(
      baseBundle({
        model: `${header("Model", "m")}spec: { provider: openai }\n`,
        tool: `${header("Tool", "echo")}spec: { entry: ./tools/missing.ts, exports: [{ name: say }, { name: say }] }\n`,
        agent: agentWith("  prompt: { system: hi, systemRef: ./p.md }\n  tools: [Tool/echo, Extension/x]\n"),
        swarm: `${header("Swarm", "s")}spec: { entryAgent: Agent/a, agents: [Agent/a], policy: { maxStepsPerTurn: -1 } }\n`,
      }),
    );
    const result = await loadBundle(dir);
    expect(result.errors.map((issue) => [issue.code, issue.path]).sort()).toEqual(
      [
        ["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#0.spec.model"],
        ["E_CONFIG_REF_KIND", "goondan.yaml#2.spec.tools[1]"],
        ["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#3.spec.policy.maxStepsPerTurn"],
        ["E_CONFIG_DUPLICATE_NAME", "goondan.yaml#1.spec.exports[1].name"],
        ["E_CONFIG_PROMPT_CONFLICT", "goondan.yaml#2.spec.prompt"],
        ["E_CONFIG_ENTRY_NOT_FOUND", "goondan.yaml#1.spec.entry"],
      ].sort(),
    );
  });

  it("uses only codes listed in issue-codes.ts", async () => {
    const dir = writeBundle({ "goondan.yaml": docs(MODEL, TOOL, AGENT, SWARM, "kind: Nope", "[1, 2]") });
    const result = await loadBundle(dir);
    expect(result.errors.length).toBeGreaterThan(0);
    for (const issue of [...result.errors, ...result.warnings]) expect(Object.keys(ISSUE_CODES)).toContain(issue.code);
  });
});
