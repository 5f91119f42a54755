/**
 * Bundles split across files as the public Goondan bundle spec describes: goondan.yaml plus every
 * `models.yml`, `agents.yaml`, `tools/tools.yaml`, `resources.yaml`… under the bundle directory, read in
 * path order into one bundle; other YAML files, dependency and build directories, hidden directories and
 * nested bundles are left out.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { bundleFiles, isBundleFilePath } from "../../src/config/bundle-files.ts";
import { BUILTIN_PACKAGE, type AnyResource, type Bundle } from "../../src/config/types.ts";
import { docs, header, removeBundles, writeBundle } from "./temp-bundle.ts";

afterAll(removeBundles);

const PACKAGE = `${header("Package", "split")}spec:\n  version: "1.0.0"\n`;
const MODEL = `${header("Model", "claude")}spec:\n  provider: anthropic\n  model: claude-sonnet-4-5\n`;
const agent = (name: string, extra = "") =>
  `${header("Agent", name)}spec:\n  modelConfig: { modelRef: Model/claude }\n  prompt: { systemRef: ./prompts/${name}.md }\n${extra}`;
const SWARM = `${header("Swarm", "team")}spec:\n  entryAgent: Agent/lead\n  agents: [Agent/lead, Agent/helper]\n`;
const TOOL = `${header("Tool", "notes")}spec:\n  entry: ./tools/notes/index.ts\n  exports: [{ name: add, parameters: { type: object, properties: { text: { type: string } } } }]\n`;
const EXTENSION = `${header("Extension", "audit")}spec:\n  entry: ./extensions/audit/index.ts\n`;
const CONNECTOR = `${header("Connector", "ticker")}spec:\n  entry: ./connectors/ticker/index.ts\n  events: [{ name: tick }]\n`;
const CONNECTION = `${header("Connection", "ticks")}spec:\n  connectorRef: Connector/ticker\n  ingress: { rules: [{ match: { event: tick }, route: { agentRef: Agent/helper } }] }\n`;

/** The split project of the public bundle spec (§8.3), every kind in its own file. */
function splitProject(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    "goondan.yaml": docs(PACKAGE, SWARM, CONNECTION),
    "models.yml": MODEL,
    "agents.yaml": docs(agent("lead", "  tools: [Tool/notes]\n  extensions: [Extension/audit]\n"), agent("helper")),
    "tools/tools.yaml": TOOL,
    "tools/notes/index.ts": "export const handlers = { add: () => 'ok' };\n",
    "extensions/extensions.yaml": EXTENSION,
    "extensions/audit/index.ts": "export function register() {}\n",
    "connectors/connectors.yaml": CONNECTOR,
    "connectors/ticker/index.ts": "export default async function () {}\n",
    "prompts/lead.md": "You lead.\n",
    "prompts/helper.md": "You help.\n",
    ...overrides,
  };
}

const local = (bundle: Bundle): AnyResource[] =>
  bundle.resources.filter((resource) => resource.source.package !== BUILTIN_PACKAGE);
const names = (bundle: Bundle): string[] =>
  local(bundle).map((resource) => `${resource.kind}/${resource.metadata.name}`);

describe("a bundle split across files", () => {
  it("loads every resource of every discovered file into one valid bundle", async () => {
    const dir = writeBundle(splitProject());
    const result = await loadBundle(dir);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(names(result.bundle!).sort()).toEqual([
      "Agent/helper",
      "Agent/lead",
      "Connection/ticks",
      "Connector/ticker",
      "Extension/audit",
      "Model/claude",
      "Package/split",
      "Swarm/team",
      "Tool/notes",
    ]);
  });

  it("reads files in path order, records each resource's file and document, and resolves entries from the bundle directory", async () => {
    const dir = writeBundle(splitProject());
    const bundle = (await loadBundle(dir)).bundle!;
    expect(bundle.file).toBe(join(dir, "goondan.yaml"));
    expect(
      local(bundle).map((resource) => [
        resource.source.file.slice(dir.length + 1),
        resource.source.docIndex,
        resource.metadata.name,
      ]),
    ).toEqual([
      ["agents.yaml", 0, "lead"],
      ["agents.yaml", 1, "helper"],
      ["connectors/connectors.yaml", 0, "ticker"],
      ["extensions/extensions.yaml", 0, "audit"],
      ["goondan.yaml", 0, "split"],
      ["goondan.yaml", 1, "team"],
      ["goondan.yaml", 2, "ticks"],
      ["models.yml", 0, "claude"],
      ["tools/tools.yaml", 0, "notes"],
    ]);
    for (const resource of local(bundle)) {
      expect(resource.source.baseDir).toBe(dir);
      expect(resource.source.package).toBe("split");
    }
  });

  it("points issues at the file and document they are in", async () => {
    const dir = writeBundle(
      splitProject({ "agents.yaml": docs(agent("lead", "  tools: [Tool/notez]\n"), agent("helper")) }),
    );
    const result = await loadBundle(dir);
    expect(result.errors.map((issue) => [issue.code, issue.path, issue.line])).toEqual([
      ["E_CONFIG_REF_NOT_FOUND", "agents.yaml#0.spec.tools[0]", 8],
    ]);
  });

  it("reports a name defined in two files once, naming the first", async () => {
    const dir = writeBundle(splitProject({ "resources.yaml": MODEL }));
    const result = await loadBundle(dir);
    expect(result.errors.map((issue) => [issue.code, issue.path])).toEqual([
      ["E_CONFIG_DUPLICATE_NAME", "resources.yaml#0.metadata.name"],
    ]);
    expect(result.errors[0]?.message).toContain("first at models.yml#0");
  });

  it("reports a YAML error in another file under that file's name", async () => {
    const dir = writeBundle(
      splitProject({ "models.yml": "apiVersion: goondan.ai/v1\nkind: Model\nmetadata: { name: claude\n" }),
    );
    const result = await loadBundle(dir);
    expect(result.errors.map((issue) => [issue.code, issue.path])).toEqual([["E_CONFIG_PARSE_ERROR", "models.yml#0"]]);
  });

  it("accepts goondan.yml as the main file", async () => {
    const files = splitProject();
    const { "goondan.yaml": main, ...rest } = files;
    const result = await loadBundle(writeBundle({ ...rest, "goondan.yml": main! }));
    expect(result.errors).toEqual([]);
    expect(result.bundle?.file.endsWith("goondan.yml")).toBe(true);
  });

  it("loads the whole bundle when pointed at its goondan.yaml, and only that file when pointed at another YAML file", async () => {
    const dir = writeBundle({
      ...splitProject(),
      "solo.yaml": docs(
        MODEL,
        agent("lead").replace("prompt: { systemRef: ./prompts/lead.md }", "prompt: { system: hi }"),
        `${header("Swarm", "solo")}spec: { entryAgent: Agent/lead, agents: [Agent/lead] }\n`,
      ),
    });
    expect(names((await loadBundle(join(dir, "goondan.yaml"))).bundle!)).toHaveLength(9);
    expect(names((await loadBundle(join(dir, "solo.yaml"))).bundle!).sort()).toEqual([
      "Agent/lead",
      "Model/claude",
      "Swarm/solo",
    ]);
  });
});

describe("files the bundle scan leaves out", () => {
  it("reads only YAML files with the names of the bundle spec", async () => {
    const dir = writeBundle(
      splitProject({
        "docker-compose.yml": "services: { app: { image: x } }\n",
        "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
        "notes.yaml": MODEL,
        "agents.json": "{}",
        "config/tool.yml": TOOL.replace("notes", "notes2"),
      }),
    );
    expect(bundleFiles(dir).map((file) => file.slice(dir.length + 1))).toEqual([
      "agents.yaml",
      "config/tool.yml",
      "connectors/connectors.yaml",
      "extensions/extensions.yaml",
      "goondan.yaml",
      "models.yml",
      "tools/tools.yaml",
    ]);
  });

  it("skips node_modules, dist, .git and hidden directories", async () => {
    const dir = writeBundle(
      splitProject({
        "node_modules/pkg/models.yaml": MODEL,
        "dist/goondan.yaml": PACKAGE,
        "DIST/agents.yaml": agent("x"),
        ".git/resources.yaml": MODEL,
        ".goondan/workspaces/w/instances/a/k/workdir/tools.yaml": TOOL,
      }),
    );
    const result = await loadBundle(dir);
    expect(result.errors).toEqual([]);
    expect(names(result.bundle!)).toHaveLength(9);
  });

  it("never merges a nested bundle (a directory with its own goondan.yaml) into its parent", async () => {
    const nested = docs(
      MODEL,
      `${header("Agent", "inner")}spec: { modelConfig: { modelRef: Model/claude }, prompt: { system: hi } }\n`,
    );
    const dir = writeBundle(
      splitProject({
        "examples/demo/goondan.yaml": nested,
        "examples/demo/agents.yaml": agent("lead"),
        "examples/demo/deeper/models.yaml": MODEL,
      }),
    );
    const result = await loadBundle(dir);
    expect(result.errors).toEqual([]);
    expect(names(result.bundle!)).not.toContain("Agent/inner");
    expect(bundleFiles(dir).some((file) => file.includes("examples"))).toBe(false);
  });
});

describe("isBundleFilePath", () => {
  it("tells the watcher which new files belong to the bundle", () => {
    expect(isBundleFilePath({ dir: "/b", path: "/b/agents.yaml" })).toBe(true);
    expect(isBundleFilePath({ dir: "/b", path: "/b/sub/Models.YML" })).toBe(true);
    expect(isBundleFilePath({ dir: "/b", path: "/b/notes.yaml" })).toBe(false);
    expect(isBundleFilePath({ dir: "/b", path: "/b/node_modules/x/agents.yaml" })).toBe(false);
    expect(isBundleFilePath({ dir: "/b", path: "/b/.state/agents.yaml" })).toBe(false);
    expect(isBundleFilePath({ dir: "/b", path: "/elsewhere/agents.yaml" })).toBe(false);
  });
});
