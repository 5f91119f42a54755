/**
 * The cases the public Goondan project's own config tests check (its runtime's resource validation and
 * bundle loader, its CLI's validator), each written anew here as a bundle on disk and the code goondan
 * reports for it. Where goondan reports a more specific code than the public one, the case says which and
 * docs/error-codes.md says why.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { findResource } from "../../src/config/resolve.ts";
import { docs, header, removeBundles, writeBundle } from "./temp-bundle.ts";

afterAll(removeBundles);

const PACKAGE = `${header("Package", '"@samples/check"')}spec:\n  version: "0.1.0"\n`;
const MODEL = `${header("Model", "claude")}spec:\n  provider: anthropic\n  model: claude-sonnet-4-5\n`;
const agent = (name: string, spec = "  prompt:\n    system: You help.\n") =>
  `${header("Agent", name)}spec:\n  modelConfig:\n    modelRef: "Model/claude"\n${spec}`;
const swarm = (spec: string) => `${header("Swarm", "default")}spec:\n${spec}`;
const ONE_AGENT_SWARM = swarm('  entryAgent: "Agent/coder"\n  agents:\n    - ref: "Agent/coder"\n');

async function load(files: Record<string, string>) {
  return loadBundle(writeBundle(files), { checkModules: false });
}

const codes = (issues: { code: string; path: string }[]) => issues.map((issue) => [issue.code, issue.path]);

describe("resource validation cases of the public project", () => {
  it("refuses an entryAgent missing from agents (E_CONFIG_ENTRY_AGENT_NOT_LISTED; the public runtime says E_CONFIG_SCHEMA_INVALID)", async () => {
    const result = await load({
      "goondan.yaml": docs(
        MODEL,
        agent("coder"),
        agent("reviewer"),
        swarm('  entryAgent: "Agent/reviewer"\n  agents: ["Agent/coder"]\n'),
      ),
    });
    expect(codes(result.errors)).toEqual([["E_CONFIG_ENTRY_AGENT_NOT_LISTED", "goondan.yaml#3.spec.entryAgent"]]);
  });

  it("refuses a Package document that is not the first document (E_CONFIG_PACKAGE_DOC_POSITION)", async () => {
    const result = await load({ "goondan.yaml": docs(MODEL, PACKAGE) });
    expect(codes(result.errors)).toEqual([["E_CONFIG_PACKAGE_DOC_POSITION", "goondan.yaml#1.kind"]]);
  });

  it("refuses a second Package document in the same file (E_CONFIG_PACKAGE_DOC_DUPLICATED)", async () => {
    const result = await load({
      "goondan.yaml": docs(PACKAGE, MODEL, `${header("Package", "sample-2")}spec:\n  version: "0.1.0"\n`),
    });
    expect(codes(result.errors)).toEqual([["E_CONFIG_PACKAGE_DOC_DUPLICATED", "goondan.yaml#2.kind"]]);
  });

  it("accepts an Agent whose prompt is empty or absent (a warning, not an error)", async () => {
    for (const spec of ["  prompt: {}\n", ""]) {
      const result = await load({ "goondan.yaml": docs(MODEL, agent("coder", spec), ONE_AGENT_SWARM) });
      expect(result.errors).toEqual([]);
      expect(codes(result.warnings)).toEqual([["W_CONFIG_PROMPT_MISSING", "goondan.yaml#1.spec"]]);
    }
  });

  it("refuses prompt.system with prompt.systemRef (E_CONFIG_PROMPT_CONFLICT; the public runtime says E_CONFIG_SCHEMA_INVALID)", async () => {
    const result = await load({
      "goondan.yaml": docs(
        MODEL,
        agent("coder", '  prompt:\n    system: inline\n    systemRef: "./prompts/coder.system.md"\n'),
        ONE_AGENT_SWARM,
      ),
      "prompts/coder.system.md": "You code.\n",
    });
    expect(codes(result.errors)).toEqual([["E_CONFIG_PROMPT_CONFLICT", "goondan.yaml#1.spec.prompt"]]);
  });

  it("refuses an empty metadata.name (E_CONFIG_INVALID_NAME)", async () => {
    const result = await load({ "goondan.yaml": docs(MODEL.replace("name: claude", 'name: ""')) });
    expect(codes(result.errors)).toEqual([["E_CONFIG_INVALID_NAME", "goondan.yaml#0.metadata.name"]]);
  });

  it("refuses an empty Swarm instanceKey (E_CONFIG_SCHEMA_INVALID)", async () => {
    const result = await load({
      "goondan.yaml": docs(
        MODEL,
        agent("coder"),
        swarm('  entryAgent: "Agent/coder"\n  agents: ["Agent/coder"]\n  instanceKey: ""\n'),
      ),
    });
    expect(codes(result.errors)).toEqual([["E_CONFIG_SCHEMA_INVALID", "goondan.yaml#2.spec.instanceKey"]]);
  });

  it("refuses an unsupported or missing apiVersion (E_CONFIG_UNSUPPORTED_API_VERSION)", async () => {
    const missing = await load({ "goondan.yaml": MODEL.replace("apiVersion: goondan.ai/v1\n", "") });
    expect(codes(missing.errors)).toEqual([["E_CONFIG_UNSUPPORTED_API_VERSION", "goondan.yaml#0"]]);
    const other = await load({ "goondan.yaml": MODEL.replace("goondan.ai/v1", "goondan.ai/v2") });
    expect(codes(other.errors)).toEqual([["E_CONFIG_UNSUPPORTED_API_VERSION", "goondan.yaml#0.apiVersion"]]);
  });

  it("refuses a ref string that is not Kind/name (E_CONFIG_INVALID_REF)", async () => {
    for (const ref of ["Model", "Model/claude/v2"]) {
      const result = await load({
        "goondan.yaml": docs(MODEL, agent("coder").replace('"Model/claude"', `"${ref}"`), ONE_AGENT_SWARM),
      });
      expect(codes(result.errors)).toEqual([["E_CONFIG_INVALID_REF", "goondan.yaml#1.spec.modelConfig.modelRef"]]);
    }
  });
});

describe("bundle loader cases of the public project", () => {
  it("ignores the dist directory: its goondan.yaml is not a second Package", async () => {
    const result = await load({
      "goondan.yaml": docs(PACKAGE, MODEL, agent("coder"), ONE_AGENT_SWARM),
      "dist/goondan.yaml": PACKAGE,
    });
    expect(result.errors).toEqual([]);
    expect(result.bundle?.resources.filter((resource) => resource.kind === "Package")).toHaveLength(1);
  });

  it("reports a Tool whose entry file is missing (E_CONFIG_ENTRY_NOT_FOUND)", async () => {
    const tool = `${header("Tool", "self-restart")}spec:\n  entry: "./dist/tools/self-restart.js"\n  exports:\n    - name: request\n      description: Request runtime restart\n      parameters:\n        type: object\n`;
    const result = await load({
      "goondan.yaml": docs(
        PACKAGE,
        MODEL,
        agent("coder", '  prompt:\n    system: test\n  tools:\n    - ref: "Tool/self-restart"\n'),
        tool,
        ONE_AGENT_SWARM,
      ),
    });
    expect(codes(result.errors)).toEqual([["E_CONFIG_ENTRY_NOT_FOUND", "goondan.yaml#3.spec.entry"]]);
    expect(result.errors[0]?.message).toContain("./dist/tools/self-restart.js");
  });

  it("resolves refs written as nested {ref: {kind, name}} objects the same way as strings", async () => {
    const tool = `${header("Tool", "slack-lite")}spec:\n  entry: ./tools/slack.ts\n  exports:\n    - name: send\n      description: Send to Slack\n      parameters:\n        type: object\n`;
    const coordinator = `${header("Agent", "coordinator")}spec:\n  modelConfig:\n    modelRef:\n      kind: Model\n      name: claude\n  prompt: { system: hi }\n  requiredTools: ["slack-lite__send"]\n  tools:\n    - ref:\n        kind: Tool\n        name: slack-lite\n`;
    const brain = `${header("Swarm", "brain")}spec:\n  entryAgent:\n    kind: Agent\n    name: coordinator\n  agents:\n    - ref:\n        kind: Agent\n        name: coordinator\n`;
    const result = await load({
      "goondan.yaml": docs(PACKAGE, MODEL, tool, coordinator, brain),
      "tools/slack.ts": "export const handlers = { send: () => ({ ok: true }) };\n",
    });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    const bundle = result.bundle!;
    expect(findResource(bundle, "Agent", "coordinator")?.spec.tools).toEqual([{ kind: "Tool", name: "slack-lite" }]);
  });

  it("refuses a nested ref to a Tool that does not exist (E_CONFIG_REF_NOT_FOUND)", async () => {
    const result = await load({
      "goondan.yaml": docs(
        PACKAGE,
        MODEL,
        agent("coder", "  tools:\n    - ref:\n        kind: Tool\n        name: missing-tool\n"),
        ONE_AGENT_SWARM,
      ),
    });
    expect(codes(result.errors)).toEqual([["E_CONFIG_REF_NOT_FOUND", "goondan.yaml#2.spec.tools[0]"]]);
  });
});

describe("CLI validator cases of the public project", () => {
  it("keeps a bundle without a Swarm valid and warns W_SWARM_MISSING", async () => {
    const result = await load({ "goondan.yaml": MODEL });
    expect(result.valid).toBe(true);
    expect(codes(result.warnings)).toEqual([["W_SWARM_MISSING", "goondan.yaml"]]);
    expect(result.warnings[0]?.severity).toBe("warning");
  });

  it("reports a directory without goondan.yaml as E_FILE_NOT_FOUND", async () => {
    const result = await load({ "agents.yaml": agent("coder") });
    expect(codes(result.errors)).toEqual([["E_FILE_NOT_FOUND", "goondan.yaml"]]);
  });

  it("reports a bundle without any resource document as E_KIND_MISSING", async () => {
    const result = await load({ "goondan.yaml": "# nothing yet\n" });
    expect(codes(result.errors)).toEqual([["E_KIND_MISSING", "goondan.yaml"]]);
  });
});
