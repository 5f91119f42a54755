/**
 * `goondan backup <file> [--state-root DIR]`: writes a consistent copy of the state root's database (every
 * conversation, inbox, pending result, extension state and runtime event) to `<file>`, safe to run while goondan
 * runs (store/sqlite/backup-database.ts). Restore: stop goondan, move `goondan.db` and its `-wal`/`-shm` files aside,
 * put the copy in as `goondan.db`.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../../shared/errors.ts";
import { defaultStateRoot } from "../../shared/state-paths.ts";
import { stateDatabasePath } from "../../store/open-state-store.ts";
import { backupDatabase } from "../../store/sqlite/index.ts";
import { EXIT, type CliCommand } from "../command.ts";

export const command: CliCommand = {
  name: "backup",
  summary: "write a consistent copy of the state database to a file, even while goondan runs",
  usage: "goondan backup <file> [--state-root DIR]",
  maxPositionals: 1,
  flags: {
    "state-root": { type: "string", description: "state root (default GOONDAN_STATE_ROOT or ~/.goondan)" },
  },
  async run({ flags, positionals, io }) {
    const [target] = positionals;
    if (target === undefined)
      throw new UsageError(
        "E_USAGE_MISSING_ARGUMENT",
        "backup needs the file to write, e.g. goondan backup goondan-2026-11-23.db",
      );
    const stateRoot = typeof flags["state-root"] === "string" ? flags["state-root"] : defaultStateRoot(io.env);
    const database = stateDatabasePath(stateRoot);
    if (!existsSync(database)) {
      io.stderr(`goondan backup: no state database under ${stateRoot} (${database}); nothing to back up\n`);
      return EXIT.failure;
    }
    const to = resolve(io.cwd, target);
    const { bytes } = backupDatabase({ file: database, to });
    io.stdout(`backed up ${database} to ${to} (${(bytes / 1024).toFixed(0)} KiB)\n`);
    return EXIT.ok;
  },
};
