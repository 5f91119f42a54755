/**
 * The built-in package @goondan/base is loaded with the same reader and checks as a bundle: once per
 * process, every resource marked as built-in, every entry present and every Tool module matching its
 * exports.
 */
import { describe, expect, it } from "bun:test";
import { dirname } from "node:path";
import { BUILTIN_FILE, checkBuiltinPackage, loadBuiltinPackage } from "../../src/config/builtin-package.ts";
import { BUILTIN_PACKAGE } from "../../src/config/types.ts";

describe("the built-in package", () => {
  it("loads once per process", async () => {
    expect(await loadBuiltinPackage()).toBe(await loadBuiltinPackage());
  });

  it("marks every resource as @goondan/base with entries relative to src/base", async () => {
    const resources = await loadBuiltinPackage();
    expect(resources.length).toBeGreaterThan(0);
    for (const { resource, builtin } of resources) {
      expect(builtin).toBe(true);
      expect(resource.source.package).toBe(BUILTIN_PACKAGE);
      expect(resource.source.baseDir).toBe(dirname(BUILTIN_FILE));
      expect(resource.kind).not.toBe("Package");
    }
  });

  it("provides the tools SPEC §2 lists", async () => {
    const names = (await loadBuiltinPackage())
      .filter(({ resource }) => resource.kind === "Tool")
      .map(({ resource }) => resource.metadata.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "bash",
        "file-system",
        "http-fetch",
        "json-query",
        "text-transform",
        "wait",
        "agents",
        "self-restart",
      ]),
    );
  });

  it("has every entry file and a handler for every Tool export", async () => {
    const { errors } = await checkBuiltinPackage();
    expect(errors).toEqual([]);
  });
});
