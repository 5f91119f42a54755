/**
 * `goondan init [dir] [--template default|multi-agent] [--force]`: writes a ready-to-run bundle from a
 * template in src/cli/templates/<template>/ (goondan.yaml, prompts, tools). Refuses a non-empty target
 * directory unless --force. `{{name}}` in templates becomes a resource-safe name derived from the directory.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { EXIT, type CliCommand } from "../command.ts";
import { UsageError } from "../../shared/errors.ts";

export const TEMPLATES = ["default", "multi-agent"] as const;
export type TemplateName = (typeof TEMPLATES)[number];

const TEMPLATE_ROOT = new URL("../templates/", import.meta.url).pathname;

/** npm drops dotfiles like `.gitignore` from published packages, so templates store them without the dot. */
const RENAMES: Record<string, string> = { gitignore: ".gitignore" };

/** A lowercase name made of letters, digits, `-` and `_` (what goondan resource names allow). */
export function bundleName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/_{2,}/g, "_")
    .replace(/^[-_]+|[-_]+$/g, "");
  return name === "" ? "my-swarm" : name;
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? templateFiles(path) : [path];
  });
}

export interface InitOptions {
  /** Target directory (created when missing). */
  dir: string;
  /** Default: "default". */
  template?: TemplateName;
  /** Write into a non-empty directory, overwriting template files. Default: false. */
  force?: boolean;
}

/** Writes the template into `dir` and returns the written paths, relative to `dir`. */
export function initBundle(options: InitOptions): string[] {
  const template = options.template ?? "default";
  if (!TEMPLATES.includes(template)) {
    throw new UsageError("E_INIT_UNKNOWN_TEMPLATE", `unknown template ${JSON.stringify(template)}, expected one of ${TEMPLATES.join(", ")}`);
  }
  const target = resolve(options.dir);
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) throw new UsageError("E_INIT_TARGET_NOT_DIRECTORY", `${target} exists and is not a directory`);
    if (readdirSync(target).length > 0 && !options.force) {
      throw new UsageError("E_INIT_TARGET_NOT_EMPTY", `${target} is not empty`, { suggestion: "choose an empty directory or pass --force to overwrite the template's files" });
    }
  }
  const source = join(TEMPLATE_ROOT, template);
  const name = bundleName(target);
  const written: string[] = [];
  for (const file of templateFiles(source).sort()) {
    const parts = relative(source, file).split("/");
    const last = parts.length - 1;
    parts[last] = RENAMES[parts[last] as string] ?? (parts[last] as string);
    const destination = join(target, ...parts);
    mkdirSync(join(destination, ".."), { recursive: true });
    writeFileSync(destination, readFileSync(file, "utf8").replaceAll("{{name}}", name));
    written.push(parts.join("/"));
  }
  return written;
}

export const command: CliCommand = {
  name: "init",
  summary: "write a new bundle (goondan.yaml, prompts, tools) from a template",
  usage: "goondan init [dir] [--template default|multi-agent] [--force]",
  flags: {
    template: { type: "string", description: "which bundle to write (default: default)", choices: TEMPLATES },
    force: { type: "boolean", description: "write into a non-empty directory, overwriting files the template has" },
  },
  maxPositionals: 1,
  async run({ flags, positionals, io }) {
    const dir = resolve(io.cwd, positionals[0] ?? ".");
    const written = initBundle({ dir, template: (flags.template as TemplateName | undefined) ?? "default", force: flags.force === true });
    const shown = relative(io.cwd, dir) || ".";
    io.stdout(`Created a goondan bundle in ${shown}:\n${written.map((path) => `  ${path}\n`).join("")}\nNext:\n  npx goondan validate ${shown}\n  npx goondan run ${shown} --input "Hello"\n`);
    return EXIT.ok;
  },
};
