/**
 * Lays out a directory the way the Dockerfile builds the image, without a container engine: every COPY of
 * the runtime stage is replayed from the repository (honouring .dockerignore), `/app` and the state volume
 * are mapped into a temporary root, and node_modules holds only what `npm ci --omit=dev --omit=optional`
 * installs (the production packages of package-lock.json, symlinked from the repository's install).
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import {
  dockerignorePatterns,
  envOf,
  execForm,
  isIgnored,
  parseDockerfile,
  splitOptions,
  stages,
} from "./dockerfile.ts";

export interface ImageLayout {
  /** Temporary root standing in for `/`. */
  root: string;
  /** Maps an absolute path inside the image to the temporary layout. */
  map: (path: string) => string;
  /** ENV of the runtime stage, with paths mapped. */
  env: Record<string, string>;
  /** ENTRYPOINT + CMD in exec form, as the image would run them (paths not yet mapped). */
  command: string[];
  workdir: string;
}

export function productionPackages(repo: string): string[] {
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; optional?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(
      ([path, entry]) =>
        path.startsWith("node_modules/") &&
        !path.slice("node_modules/".length).includes("/node_modules/") &&
        !entry.dev &&
        !entry.optional,
    )
    .map(([path]) => path.slice("node_modules/".length));
}

export function layoutImage(options: { repo: string; root: string }): ImageLayout {
  const { repo, root } = options;
  const runtime = stages(parseDockerfile(readFileSync(join(repo, "Dockerfile"), "utf8"))).at(-1)!;
  const ignore = dockerignorePatterns(readFileSync(join(repo, ".dockerignore"), "utf8"));
  const map = (path: string): string => join(root, path);
  let workdir = "/";
  let entrypoint: string[] = [];
  let cmd: string[] = [];
  for (const instruction of runtime.instructions) {
    if (instruction.keyword === "WORKDIR") {
      workdir = instruction.args;
      mkdirSync(map(workdir), { recursive: true });
    } else if (instruction.keyword === "COPY") {
      const { options: copyOptions, rest } = splitOptions(instruction.args);
      const parts = rest.split(" ");
      const destination = parts.at(-1)!;
      const target = isAbsolute(destination) ? destination : join(workdir, destination);
      if (copyOptions.from) {
        if (!target.endsWith("/node_modules"))
          throw new Error(`unexpected COPY --from at line ${instruction.line}: ${instruction.args}`);
        for (const name of productionPackages(repo)) {
          const link = join(map(target), name);
          mkdirSync(dirname(link), { recursive: true });
          symlinkSync(join(repo, "node_modules", name), link);
        }
        continue;
      }
      for (const source of parts.slice(0, -1)) {
        // Docker: a destination ending in "/" (or several sources) is a directory to copy into.
        const into = parts.length > 2 || destination.endsWith("/") ? join(map(target), basename(source)) : map(target);
        mkdirSync(dirname(into), { recursive: true });
        cpSync(join(repo, source), into, {
          recursive: true,
          filter: (path) => !isIgnored({ path: relative(repo, path), patterns: ignore }),
        });
      }
    } else if (instruction.keyword === "ENTRYPOINT") {
      entrypoint = execForm(instruction.args) ?? [];
    } else if (instruction.keyword === "CMD") {
      cmd = execForm(instruction.args) ?? [];
    }
  }
  const env = Object.fromEntries(
    Object.entries(envOf(runtime.instructions)).map(([name, value]) => [
      name,
      value.startsWith("/") ? map(value) : value,
    ]),
  );
  for (const value of Object.values(env)) if (value.startsWith(root)) mkdirSync(value, { recursive: true });
  return { root, map, env, command: [...entrypoint, ...cmd], workdir };
}
