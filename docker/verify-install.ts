/**
 * The image build's proof that the install is whole: the Dockerfile's runtime stage runs it after copying
 * node_modules and the sources, so a broken install fails the build instead of shipping. With the Bun the image
 * runs on, it imports goondan's entry modules (the package entry, the container entry, the CLI and each of its
 * commands, which import the daemon, the HTTP API, the store and the cluster) and every production dependency
 * named in package.json. A dependency whose package.json is missing fails; one that is installed but has no root
 * module to import (only a `bin`, like the `bun` package, or a root export its publisher left out) is checked by
 * `npm ls` in the install stage only. Each failure is named; the exit code is 1.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const APP = join(import.meta.dir, "..");

/** goondan's own modules the build imports, in order. */
export function entryModules(app: string = APP): string[] {
  const commands = join(app, "src", "cli", "commands");
  return [
    join(app, "src", "index.ts"),
    join(app, "docker", "entrypoint.ts"),
    join(app, "src", "cli", "main.ts"),
    ...readdirSync(commands)
      .filter((name) => name.endsWith(".ts"))
      .sort()
      .map((name) => join(commands, name)),
  ];
}

/** The dependencies the build imports by name: installed ones with a root module, and missing ones (to fail). */
export function dependencyModules(app: string = APP): string[] {
  const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(manifest.dependencies ?? {}).filter((name) => {
    if (!existsSync(join(app, "node_modules", name, "package.json"))) return true;
    try {
      Bun.resolveSync(name, app);
      return true;
    } catch {
      return false;
    }
  });
}

/** Imports each module; the failures, one line each. */
export async function importAll(modules: readonly string[]): Promise<string[]> {
  const failures: string[] = [];
  for (const module of modules) {
    try {
      await import(module.startsWith("/") ? module : Bun.resolveSync(module, APP));
    } catch (error) {
      failures.push(`${module}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    }
  }
  return failures;
}

if (import.meta.main) {
  const modules = [...dependencyModules(), ...entryModules()];
  const failures = await importAll(modules);
  if (failures.length > 0) {
    process.stderr.write(`the install is broken; these did not import:\n  ${failures.join("\n  ")}\n`);
    process.exit(1);
  }
  process.stdout.write(`install verified: ${modules.length} modules imported\n`);
  process.exit(0);
}
