/**
 * Which cases a run takes and the bundle each side runs: `--filter` by text or `*` pattern, the Swarm and Agent a
 * case goes to, `--model-override` (every Agent on one Model, an unknown Model a coded error) and replay (every
 * Model answering from the case's cassette).
 */
import { afterAll, describe, expect, it } from "bun:test";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import type { AgentResource, ModelResource } from "../../src/config/types.ts";
import { evalCases } from "../../src/eval/eval-cases.ts";
import { overrideModel, replayFrom } from "../../src/eval/case-bundle.ts";
import { baseBundle, header, removeBundles, writeBundle } from "../config/temp-bundle.ts";

afterAll(removeBundles);

const cases = (names: string[], agent = "") =>
  `${header("Eval", "smoke")}spec:\n${agent}  cases:\n${names.map((name) => `    - { name: ${name}, input: hi, expect: {} }\n`).join("")}`;

async function bundleWith(extra: string[]) {
  const files = baseBundle({ extra: [`${header("Model", "other")}spec: { provider: openai, model: gpt-4o-mini }\n`] });
  extra.forEach((text, index) => {
    files[`evals/e${index}.yaml`] = text;
  });
  return loadBundleOrThrow(writeBundle(files), { checkModules: false });
}

describe("evalCases", () => {
  it("takes every case in the order written, each with the Swarm's entry agent", async () => {
    const bundle = await bundleWith([cases(["b-one", "a-two"])]);
    expect(evalCases(bundle).map((entry) => [entry.id, entry.swarm, entry.agent])).toEqual([
      ["smoke/b-one", "s", "a"],
      ["smoke/a-two", "s", "a"],
    ]);
  });

  it("narrows by a substring of <eval>/<case>, or a pattern where * is any text", async () => {
    const bundle = await bundleWith([cases(["greets", "greets-twice", "reads"])]);
    expect(evalCases(bundle, "greets").map((entry) => entry.evalCase.name)).toEqual(["greets", "greets-twice"]);
    expect(evalCases(bundle, "smoke/*s").map((entry) => entry.evalCase.name)).toEqual(["greets", "reads"]);
    expect(evalCases(bundle, "nothing")).toEqual([]);
  });
});

describe("the bundle a side runs", () => {
  it("with --model-override, has every Agent call that Model", async () => {
    const bundle = overrideModel(await bundleWith([cases(["one"])]), "other");
    const agents = bundle.resources.filter((resource): resource is AgentResource => resource.kind === "Agent");
    expect(agents.map((agent) => agent.spec.modelConfig.modelRef.name)).toEqual(["other"]);
  });

  it("refuses a Model the bundle does not define, naming the ones it does", async () => {
    const bundle = await bundleWith([cases(["one"])]);
    expect(() => overrideModel(bundle, "otehr")).toThrow(
      expect.objectContaining({ code: "E_EVAL_MODEL_NOT_FOUND", suggestion: "defined models: other, m" }),
    );
  });

  it("with replay, has every Model answer from the case's cassette", async () => {
    const bundle = replayFrom(await bundleWith([cases(["one"])]), "evals/cassettes/smoke/one.jsonl");
    const models = bundle.resources.filter((resource): resource is ModelResource => resource.kind === "Model");
    expect(models.map((model) => [model.spec.provider, model.spec.options?.cassette])).toEqual([
      ["replay", "evals/cassettes/smoke/one.jsonl"],
      ["replay", "evals/cassettes/smoke/one.jsonl"],
    ]);
  });
});
