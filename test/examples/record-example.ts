/**
 * Records cassettes/example.jsonl for real: starts the loopback OpenAI-compatible LLM scripted with the
 * example's conversation (example-script.ts), copies the bundled example with its Model switched to
 * `openai-compatible` at the loopback URL, and runs `goondan run --record cassettes/example.jsonl --input
 * <README input>` on the copy. The bundle at the repository root then replays that cassette offline.
 *
 *   bun test/examples/record-example.ts
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { startLoopbackLlm } from "../helpers/loopback-llm.ts";
import { EXAMPLE_INPUT, EXAMPLE_RULES } from "./example-script.ts";

export const REPO = join(import.meta.dir, "..", "..");
export const CASSETTE = join(REPO, "cassettes", "example.jsonl");

/** A goondan.yaml with every Model pointed at an OpenAI-compatible endpoint (no key needed). */
export function liveBundleYaml(options: { yaml: string; endpoint: string }): string {
  return parseAllDocuments(options.yaml)
    .map((document) => {
      const resource = document.toJS() as { kind: string; spec: Record<string, unknown> };
      if (resource.kind === "Model") {
        resource.spec = { provider: "openai-compatible", model: "loopback", endpoint: options.endpoint };
      }
      return stringify(resource);
    })
    .join("---\n");
}

/** Records into `cassette` (default cassettes/example.jsonl, replaced). */
export async function recordExample(
  options: { cassette?: string } = {},
): Promise<{ output: string; requests: number }> {
  const cassette = options.cassette ?? CASSETTE;
  const llm = await startLoopbackLlm({ rules: EXAMPLE_RULES.map((rule) => ({ ...rule })) });
  const work = mkdtempSync(join(tmpdir(), "goondan-record-"));
  try {
    const bundle = join(work, "bundle");
    cpSync(join(REPO, "prompts"), join(bundle, "prompts"), { recursive: true });
    writeFileSync(
      join(bundle, "goondan.yaml"),
      liveBundleYaml({ yaml: readFileSync(join(REPO, "goondan.yaml"), "utf8"), endpoint: llm.url }),
    );
    rmSync(cassette, { force: true });
    const child = Bun.spawn(
      [
        process.execPath,
        join(REPO, "bin", "goondan"),
        "run",
        bundle,
        "--record",
        cassette,
        "--input",
        EXAMPLE_INPUT,
        "--state-root",
        join(work, "state"),
      ],
      {
        cwd: work,
        env: { ...process.env, GOONDAN_LOG_LEVEL: "warn" },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [output, errors, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (code !== 0 || llm.unexpected.length > 0) {
      throw new Error(
        `recording failed (exit ${code}, ${llm.unexpected.length} unscripted model calls):\n${output}\n${errors}`,
      );
    }
    return { output, requests: llm.requests.length };
  } finally {
    await llm.close();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { output, requests } = await recordExample();
  process.stdout.write(`${output}\nrecorded ${requests} model calls into ${CASSETTE}\n`);
}
