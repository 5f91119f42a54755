/**
 * A bounded fuzz of `goondan validate`: generated mutations of a valid bundle (the every-kind fixture: each
 * kind, each provider, files of each sort) — a value replaced by a random one, a key removed or added, a
 * document dropped, duplicated or turned into a scalar, bytes of the YAML text changed — and each outcome must
 * be a success or coded validation issues with a path and a message, never an exception, a stack trace or a
 * hang. In-process runs skip the module probe (run count and time are bounded); a few runs go through the
 * real CLI process, probe included.
 */
import { afterAll, describe, expect, it } from "bun:test";
import fc from "fast-check";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { ISSUE_CODES } from "../../src/config/issue-codes.ts";
import { loadBundle } from "../../src/config/load-bundle.ts";
import type { ConfigIssue } from "../../src/config/types.ts";
import { GOONDAN_BIN } from "../helpers/goondan-process.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

const FIXTURE = join(import.meta.dir, "../fixtures/bundles/every-kind");
const ORIGINAL = readFileSync(join(FIXTURE, "goondan.yaml"), "utf8");
const DOCUMENTS = parseAllDocuments(ORIGINAL).map((document) => document.toJSON() as unknown);
const HANG_MS = 10_000;

const work = mkdtempSync(join(tmpdir(), "goondan-validate-fuzz-"));
cpSync(FIXTURE, work, { recursive: true });
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Path = (string | number)[];

/** Every path to a value inside `value` (the root included). */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const here = [prefix];
  if (Array.isArray(value)) return here.concat(...value.map((item, index) => pathsOf(item, [...prefix, index])));
  if (typeof value === "object" && value !== null)
    return here.concat(...Object.entries(value).map(([key, item]) => pathsOf(item, [...prefix, key])));
  return here;
}

function parentOf(
  root: unknown,
  path: Path,
): { parent: Record<string | number, unknown>; key: string | number } | undefined {
  if (path.length === 0) return undefined;
  let parent = root as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) parent = parent[segment] as Record<string | number, unknown>;
  return { parent, key: path[path.length - 1] as string | number };
}

// Values a user (or an attacker) might write where something else was expected.
const nasty = fc.oneof(
  fc.constantFrom(
    "",
    "..",
    "../../etc/passwd",
    "/dev/zero",
    "/etc/shadow",
    "./missing.ts",
    "Tool/nope",
    "Agent/",
    "a__b",
    "@goondan/base",
    "-1",
    "null",
    "${HOME}",
    "\u0000",
    "가",
    "💥",
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant("x".repeat(5000)),
);

const structural = fc.record({
  doc: fc.nat(),
  at: fc.nat(),
  op: fc.constantFrom(
    "replace",
    "delete",
    "add-key",
    "wrap-in-list",
    "drop-document",
    "duplicate-document",
    "scalar-document",
  ),
  key: fc.oneof(
    fc.constantFrom(
      "spec",
      "kind",
      "metadata",
      "name",
      "entry",
      "exports",
      "parameters",
      "ref",
      "package",
      "cassette",
      "systemRef",
      "valueFrom",
    ),
    fc.string({ maxLength: 12 }),
  ),
  value: nasty,
});

function mutateDocuments(mutation: { doc: number; at: number; op: string; key: string; value: unknown }): string {
  const documents = structuredClone(DOCUMENTS) as unknown[];
  const index = mutation.doc % documents.length;
  switch (mutation.op) {
    case "drop-document":
      documents.splice(index, 1);
      break;
    case "duplicate-document":
      documents.splice(index, 0, structuredClone(documents[index]));
      break;
    case "scalar-document":
      documents[index] = mutation.value;
      break;
    default: {
      const paths = pathsOf(documents[index]);
      const path = paths[mutation.at % paths.length] as Path;
      const target = parentOf(documents[index], path);
      if (target === undefined) {
        documents[index] = mutation.value;
      } else if (mutation.op === "replace") {
        target.parent[target.key] = mutation.value;
      } else if (mutation.op === "delete") {
        if (Array.isArray(target.parent)) target.parent.splice(Number(target.key), 1);
        else delete target.parent[target.key];
      } else if (mutation.op === "wrap-in-list") {
        target.parent[target.key] = [target.parent[target.key]];
      } else {
        const holder = target.parent[target.key];
        if (typeof holder === "object" && holder !== null && !Array.isArray(holder))
          (holder as Record<string, unknown>)[mutation.key] = mutation.value;
        else target.parent[target.key] = { [mutation.key]: mutation.value };
      }
    }
  }
  return documents.map((document) => stringify(document)).join("---\n");
}

const textual = fc.record({
  at: fc.nat(),
  remove: fc.nat({ max: 40 }),
  insert: fc.string({ unit: fc.constantFrom(..."{}[]:-,&*!|>'\"#%@`\n \t?"), maxLength: 12 }),
});

function mutateText(mutation: { at: number; remove: number; insert: string }): string {
  const at = mutation.at % (ORIGINAL.length + 1);
  return ORIGINAL.slice(0, at) + mutation.insert + ORIGINAL.slice(at + mutation.remove);
}

const STACK =
  /\n\s+at |\bat .*\.ts:\d+|TypeError|ReferenceError|RangeError|Cannot read propert|is not a function|\[object Object\]/;

function expectCoded(issues: readonly ConfigIssue[]): void {
  for (const issue of issues) {
    expect(Object.keys(ISSUE_CODES)).toContain(issue.code);
    expect(typeof issue.path).toBe("string");
    expect(issue.path).toStartWith("goondan.yaml");
    expect(issue.message.length).toBeGreaterThan(0);
    expect(issue.message).not.toMatch(STACK);
  }
}

async function validateInProcess(text: string): Promise<void> {
  writeFileSync(join(work, "goondan.yaml"), text);
  const outcome = await Promise.race([
    loadBundle(work, { checkModules: false }),
    Bun.sleep(HANG_MS).then(() => {
      throw new Error(`validate hung for ${HANG_MS} ms on:\n${text.slice(0, 2000)}`);
    }),
  ]);
  expect(outcome.valid).toBe(outcome.errors.length === 0);
  expectCoded(outcome.errors);
  expectCoded(outcome.warnings);
}

describe("goondan validate under generated mutations of a valid bundle", () => {
  it("starts from a bundle that is valid", async () => {
    writeFileSync(join(work, "goondan.yaml"), ORIGINAL);
    expect((await loadBundle(work, { checkModules: false })).errors).toEqual([]);
  });

  it("answers every structural mutation with success or coded issues, never a crash", async () => {
    await fc.assert(
      fc.asyncProperty(structural, (mutation) => validateInProcess(mutateDocuments(mutation))),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 400),
        interruptAfterTimeLimit: Number(process.env.FUZZ_MS ?? 40_000),
        seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31),
      },
    );
  }, 60_000);

  it("answers every textual mutation with success or coded issues, never a crash", async () => {
    await fc.assert(
      fc.asyncProperty(textual, (mutation) => validateInProcess(mutateText(mutation))),
      {
        numRuns: Number(process.env.FUZZ_RUNS ?? 300),
        interruptAfterTimeLimit: Number(process.env.FUZZ_MS ?? 20_000),
        seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31),
      },
    );
  }, 40_000);

  it("answers mutations through the real CLI, module probe included, with exit 0 or 3 and JSON only", async () => {
    const samples = fc.sample(fc.oneof(structural.map(mutateDocuments), textual.map(mutateText)), {
      numRuns: 6,
      seed: 17,
    });
    for (const text of samples) {
      writeFileSync(join(work, "goondan.yaml"), text);
      const proc = Bun.spawn([process.execPath, GOONDAN_BIN, "validate", work, "--format", "json"], {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env },
      });
      const timer = setTimeout(() => proc.kill("SIGKILL"), HANG_MS);
      const [stdout, stderr, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      clearTimeout(timer);
      expect([0, 3]).toContain(code);
      expect(stderr).toBe("");
      const printed = JSON.parse(stdout) as { valid: boolean; errors: ConfigIssue[]; warnings: ConfigIssue[] };
      expectCoded(printed.errors);
      expectCoded(printed.warnings);
    }
  }, 90_000);
});
