/**
 * A small Dockerfile reader for the container tests: instructions with line continuations and comments,
 * grouped by build stage (a FROM's `${ARG}` resolved from the ARGs before the first FROM, or from build
 * arguments given), exec-form (JSON array) arguments, and a `.dockerignore` matcher good enough for the
 * patterns goondan uses (`name`, `dir/name`, `**\/name`, `*.ext`). Not a full BuildKit parser.
 */
export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY, … */
  keyword: string;
  /** The raw argument text, continuations joined. */
  args: string;
  /** 1-based line of the keyword. */
  line: number;
}

export interface Stage {
  /** The base image, build arguments substituted. */
  from: string;
  /** The FROM argument as written (`${NODE_IMAGE}`). */
  image: string;
  name?: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  const lines = text.split("\n");
  let current: { text: string; line: number } | undefined;
  for (let index = 0; index < lines.length; index++) {
    const raw = (lines[index] as string).replace(/\r$/, "");
    const trimmed = raw.trim();
    if (current === undefined && (trimmed === "" || trimmed.startsWith("#"))) continue;
    if (current !== undefined && (trimmed === "" || trimmed.startsWith("#"))) continue;
    const continued = trimmed.endsWith("\\");
    const body = continued ? trimmed.slice(0, -1) : trimmed;
    current =
      current === undefined ? { text: body, line: index + 1 } : { text: `${current.text} ${body}`, line: current.line };
    if (continued) continue;
    const match = /^(\S+)\s*(.*)$/s.exec(current.text.trim());
    if (!match) throw new Error(`Dockerfile line ${current.line}: cannot parse ${JSON.stringify(current.text)}`);
    instructions.push({
      keyword: (match[1] as string).toUpperCase(),
      args: (match[2] as string).replace(/\s+/g, " ").trim(),
      line: current.line,
    });
    current = undefined;
  }
  if (current !== undefined) throw new Error(`Dockerfile line ${current.line}: dangling line continuation`);
  return instructions;
}

/** The ARGs declared before the first FROM, with their defaults (`ARG NAME=value`; none: empty). */
export function globalArgs(instructions: readonly Instruction[]): Record<string, string> {
  const args: Record<string, string> = {};
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") break;
    if (instruction.keyword !== "ARG") continue;
    const eq = instruction.args.indexOf("=");
    if (eq < 0) args[instruction.args] = "";
    else args[instruction.args.slice(0, eq)] = instruction.args.slice(eq + 1).replace(/^"|"$/g, "");
  }
  return args;
}

/** Build stages; `buildArgs` stand for `--build-arg NAME=value` over the global ARGs' defaults. */
export function stages(instructions: readonly Instruction[], buildArgs: Record<string, string> = {}): Stage[] {
  const args = { ...globalArgs(instructions), ...buildArgs };
  const result: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const match = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!match) throw new Error(`Dockerfile line ${instruction.line}: bad FROM ${instruction.args}`);
      const image = match[1] as string;
      const from = image.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced?: string, bare?: string) => {
        const name = (braced ?? bare) as string;
        const value = args[name];
        if (value === undefined || value === "")
          throw new Error(`Dockerfile line ${instruction.line}: FROM uses ${name}, which no ARG before FROM sets`);
        return value;
      });
      result.push({ from, image, ...(match[2] ? { name: match[2] } : {}), instructions: [] });
    } else {
      const stage = result.at(-1);
      if (!stage) {
        if (instruction.keyword === "ARG") continue;
        throw new Error(`Dockerfile line ${instruction.line}: ${instruction.keyword} before FROM`);
      }
      stage.instructions.push(instruction);
    }
  }
  return result;
}

/** Exec form `["a", "b"]` → `["a", "b"]`; shell form → undefined. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith("[")) return undefined;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string")) return undefined;
  return parsed as string[];
}

/** Leading `--name=value` options of COPY, HEALTHCHECK and friends, and what follows them. */
export function splitOptions(args: string): { options: Record<string, string>; rest: string } {
  const options: Record<string, string> = {};
  let rest = args;
  for (;;) {
    const match = /^--([a-z-]+)=(\S+)\s*/.exec(rest);
    if (!match) break;
    options[match[1] as string] = match[2] as string;
    rest = rest.slice(match[0].length);
  }
  return { options, rest };
}

/** `ENV A=1 B=2` (and the legacy `ENV A 1`) → a record. */
export function envOf(instructions: readonly Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const instruction of instructions) {
    if (instruction.keyword !== "ENV") continue;
    const pairs = instruction.args.match(/\S+=("[^"]*"|\S+)/g);
    if (pairs) {
      for (const pair of pairs) {
        const eq = pair.indexOf("=");
        env[pair.slice(0, eq)] = pair.slice(eq + 1).replace(/^"|"$/g, "");
      }
    } else {
      const [name, ...value] = instruction.args.split(" ");
      env[name as string] = value.join(" ");
    }
  }
  return env;
}

export function dockerignorePatterns(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] as string;
    if (char === "*" && glob[index + 1] === "*") {
      source += ".*";
      index++;
      if (glob[index + 1] === "/") index++;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}(/.*)?$`);
}

/** True when a context-relative path is left out of the build context (last matching pattern wins). */
export function isIgnored(options: { path: string; patterns: readonly string[] }): boolean {
  const { path, patterns } = options;
  let ignored = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith("!");
    const glob = (negated ? pattern.slice(1) : pattern).replace(/^\/+|\/+$/g, "");
    if (globToRegExp(glob).test(path)) ignored = !negated;
  }
  return ignored;
}
