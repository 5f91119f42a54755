import { describe, expect, it } from "bun:test";
import {
  buildToolName,
  isValidExportName,
  isValidFullToolName,
  isValidToolPartName,
  parseToolName,
} from "../../src/tools/naming.ts";
import { toolResource } from "./helpers.ts";

describe("tool names", () => {
  it("joins a resource and an export with a double underscore", () => {
    expect(buildToolName("bash", "exec")).toBe("bash__exec");
    expect(
      buildToolName(toolResource({ name: "file-system", entry: "x.ts", exports: [{ name: "read" }] }), "read"),
    ).toBe("file-system__read");
  });

  it("splits at the first double underscore", () => {
    expect(parseToolName("bash__exec")).toEqual({ resourceName: "bash", exportName: "exec" });
    expect(parseToolName("a__b__c")).toEqual({ resourceName: "a", exportName: "b__c" });
    expect(parseToolName("file-system__list_dir")).toEqual({ resourceName: "file-system", exportName: "list_dir" });
  });

  it("returns null for a name without a separator", () => {
    expect(parseToolName("exec")).toBeNull();
    expect(parseToolName("bash_exec")).toBeNull();
  });

  it("round-trips every valid pair", () => {
    for (const [resource, exportName] of [
      ["bash", "exec"],
      ["http-fetch", "get"],
      ["my_tool", "post_message"],
      ["a1", "list-channels"],
    ] as const) {
      expect(parseToolName(buildToolName(resource, exportName))).toEqual({ resourceName: resource, exportName });
    }
  });

  it("accepts lowercase letters, digits, '-' and single '_' in part names", () => {
    for (const name of ["bash", "file-system", "post_message", "v2", "list-channels"])
      expect(isValidToolPartName(name)).toBe(true);
  });

  it("rejects '__', uppercase, dots, spaces, empty names and edge underscores", () => {
    for (const name of ["a__b", "Bash", "bash.exec", "has space", "", "_lead", "trail_", "x".repeat(65)])
      expect(isValidToolPartName(name)).toBe(false);
  });

  it("accepts camelCase export names (upstream's setChatAction, downloadFile) but not in resource names", () => {
    for (const name of ["setChatAction", "downloadFile", "send", "list-all"])
      expect(isValidExportName(name)).toBe(true);
    for (const name of ["set__action", "has space", "dot.name", "_lead", "trail_"])
      expect(isValidExportName(name)).toBe(false);
    expect(isValidToolPartName("setChatAction")).toBe(false);
  });

  it("checks full names of dynamic tools", () => {
    expect(isValidFullToolName("weather__get")).toBe(true);
    expect(isValidFullToolName("slack__setChatAction")).toBe(true);
    expect(isValidFullToolName("weather")).toBe(false);
    expect(isValidFullToolName("__get")).toBe(false);
    expect(isValidFullToolName("weather__")).toBe(false);
    expect(isValidFullToolName("weather__get now")).toBe(false);
  });
});
