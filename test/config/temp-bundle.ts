/**
 * Bundles written to a temp directory from small YAML strings, and the four documents of a minimal
 * valid bundle (Model, Tool with a local entry, Agent, Swarm) that bad-bundle cases edit one at a time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const created: string[] = [];

/** Writes `files` (path → content) under a new temp dir and returns the dir. */
export function writeBundle(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "goondan-config-"));
  created.push(dir);
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return dir;
}

export function removeBundles(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export const docs = (...documents: string[]): string =>
  documents.map((document) => document.trim()).join("\n---\n") + "\n";

const header = (kind: string, name: string) => `apiVersion: goondan.ai/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;

export const MODEL = `${header("Model", "m")}spec:\n  provider: anthropic\n  model: claude-sonnet-4-5\n`;
export const TOOL = `${header("Tool", "echo")}spec:\n  entry: ./tools/echo.ts\n  exports:\n    - name: say\n      parameters: { type: object, properties: { text: { type: string } } }\n`;
export const AGENT = `${header("Agent", "a")}spec:\n  modelConfig:\n    modelRef: Model/m\n  prompt:\n    system: You are terse.\n  tools:\n    - ref: Tool/echo\n`;
export const SWARM = `${header("Swarm", "s")}spec:\n  entryAgent: Agent/a\n  agents:\n    - ref: Agent/a\n`;
export const ECHO_MODULE =
  'export const handlers = { say: (_ctx: unknown, input: { text?: string }) => input.text ?? "" };\n';

/** The minimal valid bundle with some documents replaced or added; doc order: Model 0, Tool 1, Agent 2, Swarm 3, extras 4…. */
export function baseBundle(
  options: {
    model?: string;
    tool?: string;
    agent?: string;
    swarm?: string;
    extra?: string[];
    files?: Record<string, string>;
  } = {},
): Record<string, string> {
  return {
    "goondan.yaml": docs(
      options.model ?? MODEL,
      options.tool ?? TOOL,
      options.agent ?? AGENT,
      options.swarm ?? SWARM,
      ...(options.extra ?? []),
    ),
    "tools/echo.ts": ECHO_MODULE,
    ...options.files,
  };
}

export { header };
