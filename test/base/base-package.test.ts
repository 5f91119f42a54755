import { describe, expect, it } from "bun:test";
import { resolve } from "node:path";
import { loadBuiltinPackage } from "../../src/config/builtin-package.ts";
import type { ToolResource } from "../../src/config/types.ts";
import { isValidExportName, isValidToolPartName } from "../../src/tools/naming.ts";
import { ToolRegistry } from "../../src/tools/tool-registry.ts";
import { baseToolResources, baseTools } from "./base-tools.ts";

const EXPECTED_EXPORTS: Record<string, string[]> = {
  bash: ["exec", "script"],
  "file-system": ["read", "write", "list", "mkdir"],
  "http-fetch": ["get", "post"],
  "json-query": ["query", "pick", "count", "flatten"],
  "text-transform": ["replace", "slice", "split", "join", "trim", "case"],
  wait: ["seconds"],
  timer: ["sleep", "waitForSignal"],
  agents: ["request", "send", "schedule", "spawn", "list", "catalog"],
  "self-restart": ["request"],
  telegram: ["send", "edit", "delete", "react", "setChatAction", "downloadFile"],
  slack: ["send", "read", "edit", "delete", "react", "downloadFile"],
};

describe("@goondan/base tools", () => {
  const resources = baseToolResources();

  it("declares exactly the built-in tools and exports of SPEC §2", () => {
    expect(
      Object.fromEntries(
        resources.map((resource) => [resource.metadata.name, resource.spec.exports.map((spec) => spec.name)]),
      ),
    ).toEqual(EXPECTED_EXPORTS);
  });

  it("has an entry module exporting a handler for every export, loaded into one registry", async () => {
    const { registry } = await baseTools();
    const expected = Object.entries(EXPECTED_EXPORTS).flatMap(([tool, exports]) =>
      exports.map((name) => `${tool}__${name}`),
    );
    expect(registry.names()).toEqual(expected);
    for (const resource of resources) {
      const module = (await import(resolve(resource.source.baseDir, resource.spec.entry))) as {
        handlers: Record<string, unknown>;
      };
      expect(Object.keys(module.handlers).sort()).toEqual(resource.spec.exports.map((spec) => spec.name).sort());
    }
  });

  it("loads through the config plane's built-in package into a registry with the same tools and settings", async () => {
    const loaded = (await loadBuiltinPackage())
      .map((entry) => entry.resource)
      .filter((resource): resource is ToolResource => resource.kind === "Tool");
    const registry = await ToolRegistry.fromResources(loaded);
    const { registry: direct } = await baseTools();
    expect(registry.names()).toEqual(direct.names());
    for (const name of direct.names()) {
      const [a, b] = [registry.get(name)!, direct.get(name)!];
      expect({ name, item: a.item, timeoutMs: a.timeoutMs, limit: a.errorMessageLimit, config: a.config }).toEqual({
        name,
        item: b.item,
        timeoutMs: b.timeoutMs,
        limit: b.errorMessageLimit,
        config: b.config,
      });
    }
  });

  it("uses valid names without '__'", () => {
    for (const resource of resources) {
      expect(isValidToolPartName(resource.metadata.name)).toBe(true);
      for (const spec of resource.spec.exports) expect(isValidExportName(spec.name)).toBe(true);
    }
  });

  it("gives every export a description and a closed object schema whose properties are all described", () => {
    for (const resource of resources) {
      for (const spec of resource.spec.exports) {
        const where = `${resource.metadata.name}__${spec.name}`;
        expect({ where, description: typeof spec.description === "string" && spec.description.length > 10 }).toEqual({
          where,
          description: true,
        });
        expect({
          where,
          type: spec.parameters.type,
          additionalProperties: spec.parameters.additionalProperties,
        }).toEqual({ where, type: "object", additionalProperties: false });
        const properties = (spec.parameters.properties ?? {}) as Record<string, { description?: unknown }>;
        for (const [key, property] of Object.entries(properties)) {
          expect({ where, key, described: typeof property.description === "string" }).toEqual({
            where,
            key,
            described: true,
          });
        }
        for (const key of (spec.parameters.required ?? []) as string[]) expect(Object.keys(properties)).toContain(key);
      }
    }
  });

  it("gives long-running exports a timeout longer than their own internal limit", () => {
    const timeoutOf = (tool: string, name: string) =>
      resources.find((resource) => resource.metadata.name === tool)?.spec.exports.find((spec) => spec.name === name)
        ?.timeoutMs ?? 60_000;
    expect(timeoutOf("bash", "exec")).toBeGreaterThan(600_000);
    expect(timeoutOf("wait", "seconds")).toBeGreaterThan(300_000);
    expect(timeoutOf("http-fetch", "get")).toBeGreaterThan(120_000);
    expect(timeoutOf("agents", "request")).toBeGreaterThan(3_600_000);
  });
});
