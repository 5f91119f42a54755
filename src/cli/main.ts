/**
 * The CLI entry: dispatches `goondan <command>` to src/cli/commands/<command>.ts (loaded lazily so a
 * command pays only for what it uses), prints help and version, suggests the closest command for a typo, and
 * maps errors to exit codes.
 */
import { parseArgs, type FlagSpec } from "./args.ts";
import { withEnvFiles } from "./env-files.ts";
import { translateUpstreamFlags } from "./upstream-flags.ts";
import { EXIT, type CliCommand, type CliIo, type CommandTable } from "./command.ts";
import { isGoondanError } from "../shared/errors.ts";
import { didYouMean } from "../config/suggest.ts";
import packageJson from "../../package.json" with { type: "json" };

export const COMMANDS: CommandTable = {
  run: {
    summary: "run the swarm in the foreground (the orchestrator daemon)",
    load: () => import("./commands/run.ts"),
  },
  validate: {
    summary: "validate a bundle (goondan.yaml and its resource files)",
    load: () => import("./commands/validate.ts"),
  },
  eval: {
    summary: "run the bundle's Eval cases and score them (live, --record or --replay)",
    load: () => import("./commands/eval.ts"),
  },
  schema: { summary: "print the JSON Schema of goondan.yaml documents", load: () => import("./commands/schema.ts") },
  ps: { summary: "list the processes of a running orchestrator", load: () => import("./commands/ps.ts") },
  init: {
    summary: "write a new bundle from a template (default, multi-agent)",
    load: () => import("./commands/init.ts"),
  },
  logs: {
    summary: "print the runtime events recorded under the state root (--follow to tail)",
    load: () => import("./commands/logs.ts"),
  },
  instance: {
    summary: "list, archive or delete the instances kept under the state root",
    load: () => import("./commands/instance.ts"),
  },
  backup: {
    summary: "write a consistent copy of the state database, even while goondan runs",
    load: () => import("./commands/backup.ts"),
  },
  watch: {
    summary: "print the runtime events of a running swarm as they happen",
    load: () => import("./commands/watch.ts"),
  },
  restart: {
    summary: "reload the bundle and restart agents in the running orchestrator",
    load: () => import("./commands/restart.ts"),
  },
  approvals: {
    summary: "list the tool calls waiting for a person's approval in the running orchestrator",
    load: () => import("./commands/approvals.ts"),
  },
  schedules: {
    summary: "list the running swarm's schedules, or fire one now (schedules run NAME)",
    load: () => import("./commands/schedules.ts"),
  },
  approve: {
    summary: "approve (or --deny) a tool call waiting for a person's decision",
    load: () => import("./commands/approve.ts"),
  },
  login: {
    summary: "print a one-time link that logs the studio in as this command's credential",
    load: () => import("./commands/login.ts"),
  },
  doctor: {
    summary: "check Bun, the bundle, its env vars, the state root, the API port and bash isolation",
    load: () => import("./commands/doctor.ts"),
  },
  package: {
    summary: "add, list or remove the npm packages of goondan resources the bundle depends on",
    load: () => import("./commands/package.ts"),
  },
  completion: {
    summary: 'print a bash or zsh completion script (eval "$(goondan completion bash)")',
    load: () => import("./commands/completion.ts"),
  },
};

export const VERSION: string = packageJson.version;

function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`);
  return `goondan ${VERSION}: run swarms of LLM agents declared in goondan.yaml\n\nUsage: goondan <command> [options]\n\nCommands:\n${lines.join("\n")}\n\nRun 'goondan help <command>' or 'goondan <command> --help' for a command's options.\n`;
}

const ENV_FILE_FLAG: FlagSpec = {
  type: "string",
  description: "read variables from this dotenv file too (after the environment, before the bundle's .env)",
};

/** A command's flags, with `--env-file` for the commands that read a bundle's environment. */
function commandFlags(command: CliCommand): Record<string, FlagSpec> {
  return command.bundleEnv === true ? { ...command.flags, "env-file": ENV_FILE_FLAG } : command.flags;
}

export function commandHelp(command: CliCommand): string {
  const flags = Object.entries(commandFlags(command)).map(([name, flag]) => {
    const value =
      flag.type === "boolean"
        ? ""
        : flag.choices
          ? ` <${flag.choices.join("|")}>`
          : ` <${flag.type === "number" ? "n" : "value"}>`;
    return `  ${flag.short ? `-${flag.short}, ` : ""}--${name}${value}\n      ${flag.description}`;
  });
  return `Usage: ${command.usage}\n\n${command.summary}\n\nOptions:\n${[...flags, "  --help\n      show this help"].join("\n")}\n`;
}

export const defaultIo = (): CliIo => ({
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
});

export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  const [name, ...rest] = argv;
  const topic = name === "help" ? rest[0] : undefined;
  if (topic !== undefined && COMMANDS[topic] !== undefined) {
    io.stdout(commandHelp((await COMMANDS[topic].load()).command));
    return EXIT.ok;
  }
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout(helpText());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    io.stdout(`${VERSION}\n`);
    return EXIT.ok;
  }
  if (name.startsWith("-")) {
    io.stderr(`goondan: unknown flag ${name} (try 'goondan --help')\n`);
    return EXIT.usage;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    const meant = didYouMean(name, Object.keys(COMMANDS), (command) => `'goondan ${command}'`);
    io.stderr(`goondan: unknown command ${JSON.stringify(name)}${meant ? `; ${meant}` : ""} (try 'goondan --help')\n`);
    return EXIT.usage;
  }
  const { command } = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(commandHelp(command));
    return EXIT.ok;
  }
  try {
    const flags = commandFlags(command);
    const argv = translateUpstreamFlags({ command: name, argv: rest, flags, cwd: io.cwd });
    const parsed = parseArgs(argv, flags, { maxPositionals: command.maxPositionals });
    if (command.bundleEnv !== true) return await command.run({ ...parsed, io, commands: COMMANDS });
    const envFile = parsed.flags["env-file"];
    const env = withEnvFiles({
      env: io.env,
      cwd: io.cwd,
      bundle: parsed.positionals[0] ?? ".",
      ...(typeof envFile === "string" ? { envFile } : {}),
    });
    return await command.run({ ...parsed, io: { ...io, env }, commands: COMMANDS });
  } catch (error) {
    if (isGoondanError(error)) {
      io.stderr(`goondan ${name}: ${error.message}${error.suggestion ? ` (${error.suggestion})` : ""}\n`);
      return error.blame === "usage" ? EXIT.usage : error.blame === "config" ? EXIT.configInvalid : EXIT.failure;
    }
    io.stderr(`goondan ${name}: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failure;
  }
}
