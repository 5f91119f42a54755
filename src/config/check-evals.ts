/**
 * What an Eval's schema cannot say: each case has `input` or `turns` (one of them); case names are unique in their
 * Eval; the Swarm exists and the agents named are its members; every pattern and JSON Schema compiles; every tool
 * a case expects is given to some Agent of the Swarm (a warning instead when an Extension there may register it at
 * run time); fixture and file paths stay inside the workspace. Refs to missing Agents and Models are check-refs'.
 */
import Ajv from "ajv";
import { isAbsolute, normalize } from "node:path";
import type { IssueList, PathSegment } from "./issues.ts";
import type { LoadedResource } from "./loaded-resource.ts";
import type { RefIndex } from "./check-refs.ts";
import { closestFirst, didYouMean, joinSuggestions } from "./suggest.ts";
import { patternProblem } from "./eval-pattern.ts";
import type { EvalCase, EvalResource, SwarmResource, ToolResource } from "./types.ts";

type Raw = Record<string, any>;

export function checkEvals(options: { resources: LoadedResource[]; index: RefIndex; issues: IssueList }): void {
  const swarms = options.resources
    .map((loaded) => loaded.resource)
    .filter((resource): resource is SwarmResource => resource.kind === "Swarm");
  for (const loaded of options.resources) {
    if (loaded.resource.kind !== "Eval") continue;
    const evaluation = loaded.resource;
    const at = (segments: PathSegment[], input: Parameters<IssueList["at"]>[2]) =>
      options.issues.at(loaded.site, segments, input);
    const swarm = evalSwarm({ evaluation, swarms, at });
    const seen = new Set<string>();
    evaluation.spec.cases.forEach((evalCase, position) => {
      const segments: PathSegment[] = ["spec", "cases", position];
      const raw = ((loaded.raw.spec as Raw).cases as Raw[])[position] ?? {};
      if ((raw.input === undefined) === (raw.turns === undefined))
        at(segments, {
          code: "E_CONFIG_EVAL_INPUT",
          message: `expected one of input (one turn) or turns (a script), found ${raw.input === undefined ? "neither" : "both"}`,
        });
      if (seen.has(evalCase.name))
        at([...segments, "name"], {
          code: "E_CONFIG_EVAL_DUPLICATE_CASE",
          message: `expected case names to be unique in Eval/${evaluation.metadata.name}, found "${evalCase.name}" again`,
        });
      seen.add(evalCase.name);
      checkPatterns({ evalCase, segments, at });
      checkPaths({ evalCase, segments, at });
      if (swarm) {
        checkAgent({ swarm, name: evalCase.agent?.name, segments: [...segments, "agent"], at });
        checkTools({ evalCase, segments, at, swarm, index: options.index });
      }
    });
    if (swarm) checkAgent({ swarm, name: evaluation.spec.agent?.name, segments: ["spec", "agent"], at });
  }
}

type At = (segments: PathSegment[], input: Parameters<IssueList["at"]>[2]) => void;

function evalSwarm(options: { evaluation: EvalResource; swarms: SwarmResource[]; at: At }): SwarmResource | undefined {
  const { evaluation, swarms } = options;
  const wanted = evaluation.spec.swarm;
  if (wanted === undefined) return swarms.length === 1 ? swarms[0] : undefined;
  const found = swarms.find((swarm) => swarm.metadata.name === wanted);
  if (!found) {
    const names = swarms.map((swarm) => swarm.metadata.name);
    options.at(["spec", "swarm"], {
      code: "E_CONFIG_REF_NOT_FOUND",
      message: `Swarm/${wanted} not found`,
      suggestion:
        names.length === 0
          ? "no Swarm is defined"
          : joinSuggestions(didYouMean(wanted, names), `defined swarms: ${closestFirst(wanted, names).join(", ")}`),
    });
  }
  return found;
}

function checkAgent(options: { swarm: SwarmResource; name: string | undefined; segments: PathSegment[]; at: At }) {
  const { swarm, name } = options;
  const members = swarm.spec.agents.map((ref) => ref.name);
  if (name === undefined || name === "" || members.includes(name)) return;
  options.at(options.segments, {
    code: "E_CONFIG_EVAL_AGENT_NOT_IN_SWARM",
    message: `expected an Agent of Swarm/${swarm.metadata.name} (${members.join(", ")}), found Agent/${name}`,
    suggestion: didYouMean(name, members, (member) => `Agent/${member}`),
  });
}

function checkPatterns(options: { evalCase: EvalCase; segments: PathSegment[]; at: At }): void {
  const { evalCase, segments, at } = options;
  const expect = evalCase.expect;
  const report = (where: PathSegment[], pattern: string, flags?: string) => {
    const problem = patternProblem(pattern, flags);
    if (problem !== undefined)
      at([...segments, "expect", ...where], {
        code: "E_CONFIG_EVAL_MATCHER_INVALID",
        message: `expected a regular expression that compiles, found ${JSON.stringify(pattern)}: ${problem}`,
      });
  };
  expect.regex?.forEach((pattern, index) => report(expect.regex?.length === 1 ? ["regex"] : ["regex", index], pattern));
  expect.fileContains?.forEach((file, index) => {
    if (file.regex !== undefined) report(["fileContains", index, "regex"], file.regex);
  });
  expect.toolCalled?.forEach((call, index) => {
    for (const [name, matcher] of Object.entries(call.args ?? {})) {
      const written = matcher as Raw | null;
      if (typeof written?.$regex === "string")
        report(["toolCalled", index, "args", name, "$regex"], written.$regex, written.$flags ?? "");
    }
  });
  if (expect.jsonSchema !== undefined) {
    try {
      new Ajv({ strict: false, allErrors: true }).compile(expect.jsonSchema);
    } catch (error) {
      at([...segments, "expect", "jsonSchema"], {
        code: "E_CONFIG_EVAL_MATCHER_INVALID",
        message: `expected a JSON Schema that compiles, found: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  }
}

function checkPaths(options: { evalCase: EvalCase; segments: PathSegment[]; at: At }): void {
  const { evalCase, segments, at } = options;
  const check = (where: PathSegment[], path: string) => {
    if (!isAbsolute(path) && !normalize(path).startsWith("..")) return;
    at([...segments, ...where], {
      code: "E_CONFIG_EVAL_PATH",
      message: `expected a path inside the agent's workspace, found ${JSON.stringify(path)}`,
      suggestion: "write the path relative to the workspace, without ..",
    });
  };
  evalCase.fixtures.forEach((fixture, index) => check(["fixtures", index, "path"], fixture.path));
  const exists = evalCase.expect.fileExists ?? [];
  exists.forEach((path, index) =>
    check(exists.length === 1 ? ["expect", "fileExists"] : ["expect", "fileExists", index], path),
  );
  evalCase.expect.fileContains?.forEach((file, index) => check(["expect", "fileContains", index, "path"], file.path));
}

function checkTools(options: {
  evalCase: EvalCase;
  segments: PathSegment[];
  at: At;
  swarm: SwarmResource;
  index: RefIndex;
}): void {
  const { evalCase, segments, at, swarm, index } = options;
  const known = new Set<string>();
  let extensions = false;
  for (const member of swarm.spec.agents) {
    const agent = index.local.get(`Agent/${member.name}`)?.resource;
    if (agent?.kind !== "Agent") continue;
    extensions ||= agent.spec.extensions.length > 0;
    for (const ref of agent.spec.tools) {
      const key = `Tool/${ref.name}`;
      const tool = (ref.package ? index.builtin.get(key) : index.local.get(key))?.resource as ToolResource | undefined;
      known.add(ref.name);
      for (const item of tool?.spec.exports ?? []) known.add(`${ref.name}__${item.name}`);
    }
  }
  const check = (where: PathSegment[], name: string) => {
    if (known.has(name)) return;
    at([...segments, "expect", ...where], {
      code: extensions ? "W_CONFIG_EVAL_TOOL_UNLISTED" : "E_CONFIG_EVAL_UNKNOWN_TOOL",
      message: `expected a tool of Swarm/${swarm.metadata.name}'s agents, found "${name}"`,
      suggestion: joinSuggestions(
        didYouMean(name, known),
        known.size === 0
          ? "no agent of the Swarm has tools"
          : `tools: ${closestFirst(name, known).slice(0, 8).join(", ")}`,
      ),
    });
  };
  evalCase.expect.toolCalled?.forEach((call, position) => check(["toolCalled", position, "tool"], call.tool));
  const banned = evalCase.expect.notToolCalled ?? [];
  banned.forEach((name, position) =>
    check(banned.length === 1 ? ["notToolCalled"] : ["notToolCalled", position], name),
  );
}
