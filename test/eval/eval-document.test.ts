/**
 * The Eval document: found in goondan.yaml or in evals/*.yaml, normalized with its defaults, part of the schema
 * `goondan schema` prints, and every mistake a case can make reported as a coded issue with its file and line.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { documentSchema } from "../../src/config/document-schema.ts";
import { isBundleFilePath } from "../../src/config/bundle-files.ts";
import type { EvalResource } from "../../src/config/types.ts";
import { baseBundle, header, removeBundles, writeBundle } from "../config/temp-bundle.ts";

afterAll(removeBundles);

const evalDocument = (cases: string) => `${header("Eval", "smoke")}spec:\n  cases:\n${cases}`;

async function issuesOf(cases: string, where: "goondan.yaml" | "evals" = "evals") {
  const files = baseBundle(where === "goondan.yaml" ? { extra: [evalDocument(cases)] } : {});
  if (where === "evals") files["evals/smoke.yaml"] = evalDocument(cases);
  return loadBundle(writeBundle(files), { checkModules: false });
}

describe("the Eval document", () => {
  it("loads from evals/*.yaml with input as one turn, single strings as lists and the judge threshold defaulted", async () => {
    const result = await issuesOf(
      [
        "    - name: greets",
        "      input: hello",
        "      expect:",
        "        contains: Hello",
        "        toolCalled: [{ tool: echo__say, args: { text: { $contains: hi } }, count: { max: 2 } }]",
        "        judge: { rubric: polite, model: Model/m }",
        "",
      ].join("\n"),
    );
    expect(result.errors).toEqual([]);
    const evaluation = result.bundle?.resources.find((resource) => resource.kind === "Eval") as EvalResource;
    expect(evaluation.source.file).toEndWith("evals/smoke.yaml");
    expect(evaluation.spec.cases[0]).toMatchObject({
      name: "greets",
      turns: ["hello"],
      fixtures: [],
      expect: { contains: ["Hello"], judge: { rubric: "polite", model: { kind: "Model", name: "m" }, threshold: 0.7 } },
    });
  });

  it("is read from any YAML file directly in the top-level evals/ directory, and only there", () => {
    expect(isBundleFilePath({ dir: "/b", path: "/b/evals/anything.yaml" })).toBe(true);
    expect(isBundleFilePath({ dir: "/b", path: "/b/evals/sub/anything.yaml" })).toBe(false);
    expect(isBundleFilePath({ dir: "/b", path: "/b/other/evals/anything.yaml" })).toBe(false);
    expect(isBundleFilePath({ dir: "/b", path: "/b/evals/cassettes/smoke/greets.jsonl" })).toBe(false);
  });

  it("is a kind of the schema goondan schema prints", () => {
    const schema = documentSchema() as { properties: { kind: { enum: string[] } } };
    expect(schema.properties.kind.enum).toContain("Eval");
  });

  it("reports a case naming an unknown agent, with its file and line and the names that exist", async () => {
    const result = await issuesOf(
      "    - name: greets\n      agent: Agent/b\n      input: hello\n      expect: { contains: hi }\n",
    );
    expect(result.errors[0]).toMatchObject({
      code: "E_CONFIG_REF_NOT_FOUND",
      path: "evals/smoke.yaml#0.spec.cases[0].agent",
      line: 8,
      suggestion: "did you mean Agent/a?; defined agents: a",
    });
  });

  it("reports an unknown tool with a did-you-mean", async () => {
    const result = await issuesOf(
      "    - name: greets\n      input: hello\n      expect:\n        toolCalled: [{ tool: echo__sya }]\n",
    );
    expect(result.errors[0]).toMatchObject({ code: "E_CONFIG_EVAL_UNKNOWN_TOOL", line: 10 });
    expect(result.errors[0]?.suggestion).toStartWith('did you mean "echo__say"?');
  });

  it("reports an unknown judge Model", async () => {
    const result = await issuesOf(
      "    - name: greets\n      input: hello\n      expect:\n        judge: { rubric: polite, model: Model/judge }\n",
      "goondan.yaml",
    );
    expect(result.errors[0]).toMatchObject({
      code: "E_CONFIG_REF_NOT_FOUND",
      path: "goondan.yaml#4.spec.cases[0].expect.judge.model",
    });
  });

  it("reports a misspelled matcher operator and a pattern that does not compile", async () => {
    const result = await issuesOf(
      [
        "    - name: greets",
        "      input: hello",
        "      expect:",
        "        regex: '(unclosed'",
        "        toolCalled: [{ tool: echo__say, args: { text: { $regx: hi } } }]",
        "",
      ].join("\n"),
    );
    expect(result.errors.map((issue) => [issue.code, issue.line])).toEqual([["E_CONFIG_EVAL_MATCHER_INVALID", 11]]);
    const compiled = await issuesOf(
      "    - name: greets\n      input: hello\n      expect:\n        regex: '(unclosed'\n",
    );
    expect(compiled.errors[0]).toMatchObject({ code: "E_CONFIG_EVAL_MATCHER_INVALID", line: 10 });
  });

  it("reports a case with both input and turns, a repeated case name and a fixture leaving the workspace", async () => {
    const result = await issuesOf(
      [
        "    - name: greets",
        "      input: hello",
        "      turns: [hello]",
        "      expect: {}",
        "    - name: greets",
        "      input: hello",
        "      fixtures: [{ path: ../escape.txt, content: x }]",
        "      expect: {}",
        "",
      ].join("\n"),
    );
    expect(result.errors.map((issue) => issue.code).sort()).toEqual([
      "E_CONFIG_EVAL_DUPLICATE_CASE",
      "E_CONFIG_EVAL_INPUT",
      "E_CONFIG_EVAL_PATH",
    ]);
  });
});
