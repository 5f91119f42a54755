/**
 * The shape of one CLI command: its usage line, flags and `run`, which returns the exit code
 * (0 ok, 1 failure, 2 usage, 3 config invalid, 130 interrupted). Commands write to the given io
 * so that tests can capture output.
 */
import type { FlagSpec } from "./args.ts";

export { EXIT } from "../shared/exit-codes.ts";

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
}

/** The CLI's commands by name, each loaded lazily (main.ts holds the one table; completion reads it). */
export type CommandTable = Record<string, { summary: string; load: () => Promise<{ command: CliCommand }> }>;

export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  flags: Record<string, FlagSpec>;
  maxPositionals: number;
  /**
   * The first positional is a bundle (default `.`): the command also takes `--env-file F`, and its `io.env` is
   * completed from that file and the `.env` files of the bundle and the current directory (env-files.ts).
   */
  bundleEnv?: boolean;
  run(options: {
    flags: Record<string, string | boolean | number | undefined>;
    positionals: string[];
    io: CliIo;
    /** The command table, for commands about the CLI itself (completion). */
    commands?: CommandTable;
  }): Promise<number>;
}
