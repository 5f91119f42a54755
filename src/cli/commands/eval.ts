/**
 * `goondan eval [bundle]`: runs the bundle's Eval cases and scores them (docs/evals.md). This file only declares
 * and reads the flags; src/eval/eval-session.ts does the rest.
 */
import { resolve } from "node:path";
import type { CliCommand } from "../command.ts";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { evalSession } from "../../eval/eval-session.ts";

export const command: CliCommand = {
  name: "eval",
  summary: "run the bundle's Eval cases and score them (live, --record or --replay)",
  usage:
    "goondan eval [bundle] [--filter TEXT] [--concurrency N] [--record | --replay] [--model-override MODEL] [--budget USD] [--compare BUNDLE|MODEL] [--json FILE] [--junit FILE] [--state-root DIR] [--verbose]",
  maxPositionals: 1,
  flags: {
    filter: { type: "string", description: "only the cases whose <eval>/<case> holds this text (* matches any text)" },
    concurrency: { type: "number", description: "cases run at once (default 1)" },
    record: {
      type: "boolean",
      description: "call the models live and write a cassette per case under evals/cassettes/",
    },
    replay: {
      type: "boolean",
      description: "answer every model call from the cases' cassettes: no network, no API key",
    },
    "model-override": { type: "string", description: "every Agent calls this Model of the bundle instead of its own" },
    budget: { type: "number", description: "US dollars: start no case once the cost so far exceeds it" },
    compare: {
      type: "string",
      description: "also run the cases on another bundle (a path) or Model, and print both side by side",
    },
    json: { type: "string", description: "write the JSON report (docs/evals.md) to this file" },
    junit: { type: "string", description: "write a JUnit XML report to this file" },
    "state-root": {
      type: "string",
      description: "state directory (default GOONDAN_STATE_ROOT or ~/.goondan); cases keep theirs under evals/",
    },
    verbose: { type: "boolean", description: "print the warnings and errors of the agents on stderr" },
  },
  run({ flags, positionals, io }) {
    const text = (name: string) => (typeof flags[name] === "string" ? (flags[name] as string) : undefined);
    const number = (name: string) => (typeof flags[name] === "number" ? (flags[name] as number) : undefined);
    const path = (name: string) => (text(name) === undefined ? undefined : resolve(io.cwd, text(name) as string));
    return evalSession({
      target: resolve(io.cwd, positionals[0] ?? "."),
      ...(text("filter") !== undefined ? { filter: text("filter") } : {}),
      ...(number("concurrency") !== undefined ? { concurrency: number("concurrency") } : {}),
      record: flags.record === true,
      replay: flags.replay === true,
      ...(text("model-override") !== undefined ? { modelOverride: text("model-override") } : {}),
      ...(number("budget") !== undefined ? { budgetUsd: number("budget") } : {}),
      ...(text("compare") !== undefined ? { compare: text("compare") } : {}),
      ...(path("json") !== undefined ? { json: path("json") } : {}),
      ...(path("junit") !== undefined ? { junit: path("junit") } : {}),
      stateRoot: path("state-root") ?? defaultStateRoot(io.env),
      verbose: flags.verbose === true,
      env: io.env,
      cwd: io.cwd,
      stdout: io.stdout,
      stderr: io.stderr,
    });
  },
};
