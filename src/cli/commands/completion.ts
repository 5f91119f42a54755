/**
 * `goondan completion [bash|zsh]`: prints a shell completion script for goondan and gdn, built from the CLI's own
 * command table and each command's flags (so a new command completes with no change here). zsh runs the bash
 * script through bashcompinit.
 */
import { UsageError } from "../../shared/errors.ts";
import type { CliCommand, CommandTable } from "../command.ts";
import { EXIT } from "../command.ts";

async function commandWords(commands: CommandTable): Promise<Record<string, string[]>> {
  const words: Record<string, string[]> = {};
  for (const [name, entry] of Object.entries(commands)) {
    const { command } = await entry.load();
    words[name] = [
      ...Object.entries(command.flags).flatMap(([flag, spec]) => [
        `--${flag}`,
        ...(spec.short ? [`-${spec.short}`] : []),
      ]),
      ...(command.bundleEnv === true ? ["--env-file"] : []),
      "--help",
    ];
  }
  return words;
}

export function bashCompletion(words: Record<string, string[]>): string {
  const cases = Object.entries(words)
    .map(([name, flags]) => `    ${name}) flags="${flags.join(" ")}" ;;`)
    .join("\n");
  return `# goondan shell completion (bash; zsh: autoload -U bashcompinit && bashcompinit first)
_goondan() {
  local cur=\${COMP_WORDS[COMP_CWORD]} flags=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${Object.keys(words).join(" ")} help --help --version" -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
    help) COMPREPLY=($(compgen -W "${Object.keys(words).join(" ")}" -- "$cur")); return ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -F _goondan goondan gdn
`;
}

export const command: CliCommand = {
  name: "completion",
  summary: 'Print a shell completion script for goondan and gdn: eval "$(goondan completion bash)" in ~/.bashrc.',
  usage: "goondan completion [bash|zsh]",
  flags: {},
  maxPositionals: 1,
  async run({ positionals, io, commands = {} }) {
    const shell = positionals[0] ?? "bash";
    if (shell !== "bash" && shell !== "zsh")
      throw new UsageError("E_USAGE_BAD_VALUE", `completion for ${JSON.stringify(shell)}: expected bash or zsh`);
    const prelude = shell === "zsh" ? "autoload -U +X bashcompinit && bashcompinit\n" : "";
    io.stdout(prelude + bashCompletion(await commandWords(commands)));
    return EXIT.ok;
  },
};
