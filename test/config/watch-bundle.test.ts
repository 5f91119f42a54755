import { describe, expect, it } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { watchBundle, type BundleChange, type BundleWatcher } from "../../src/config/watch-bundle.ts";
import type { ConfigIssue } from "../../src/config/types.ts";
import { useCleanups } from "../helpers/cleanups.ts";
import { copyWatchFixture } from "../fixtures/reload/watch-fixture.ts";

const defer = useCleanups();

async function setup() {
  const { dir, bundle } = await copyWatchFixture({ defer, prefix: "goondan-watch-" });
  const changes: BundleChange[] = [];
  const invalid: { errors: ConfigIssue[]; changedFiles: string[] }[] = [];
  let loads = 0;
  const watcher = await watchBundle({
    initial: bundle,
    load: () => {
      loads++;
      return loadBundle(dir, { checkModules: false });
    },
    onChange: (change) => {
      changes.push(change);
    },
    onInvalid: (report) => {
      invalid.push(report);
    },
    debounceMs: 50,
  });
  defer(() => watcher.close());
  return { dir, watcher, changes, invalid, loads: () => loads };
}

async function waitFor(probe: () => boolean, watcher: BundleWatcher, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error("no change seen in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await watcher.idle();
}

const edit = (file: string, replace: [string, string]) =>
  writeFileSync(file, readFileSync(file, "utf8").replace(replace[0], replace[1]));

describe("watchBundle", () => {
  it("watches goondan.yaml, prompt files, entry files and their local imports", async () => {
    const { dir, watcher } = await setup();
    expect(watcher.files()).toEqual(
      ["goondan.yaml", "prompts/writer.md", "tools/clock.ts", "tools/echo.ts", "tools/lib/format.ts"].map((file) =>
        join(dir, file),
      ),
    );
  });

  it("reports only the agent whose tool helper changed", async () => {
    const { dir, watcher, changes } = await setup();
    edit(join(dir, "tools/lib/format.ts"), ["echo: ", "ECHO: "]);
    await waitFor(() => changes.length > 0, watcher);
    expect(changes).toHaveLength(1);
    expect(changes[0]?.diff).toEqual({ agents: ["planner"], swarmChanged: false, connections: [] });
    expect(changes[0]?.changedFiles).toEqual([join(dir, "tools/lib/format.ts")]);
  });

  it("debounces a burst of writes into one validation", async () => {
    const { dir, watcher, changes, loads } = await setup();
    for (let index = 0; index < 5; index++) writeFileSync(join(dir, "prompts/writer.md"), `You write, take ${index}.`);
    await waitFor(() => changes.length > 0, watcher);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await watcher.idle();
    expect(loads()).toBe(1);
    expect(changes[0]?.diff.agents).toEqual(["writer"]);
  });

  it("keeps the running bundle when the YAML breaks, then applies the fix", async () => {
    const { dir, watcher, changes, invalid } = await setup();
    const yaml = join(dir, "goondan.yaml");
    edit(yaml, ['tools: ["Tool/echo"]', 'tools: ["Tool/missing"]']);
    await waitFor(() => invalid.length > 0, watcher);
    expect(changes).toEqual([]);
    expect(invalid[0]?.errors.map((issue) => issue.code)).toContain("E_CONFIG_REF_NOT_FOUND");
    edit(yaml, ['tools: ["Tool/missing"]', 'tools: ["Tool/echo", "Tool/clock"]']);
    await waitFor(() => changes.length > 0, watcher);
    expect(changes[0]?.diff.agents).toEqual(["planner"]);
  });

  it("restarts the swarm's agents when a policy field their children read changes", async () => {
    const { dir, watcher, changes } = await setup();
    edit(join(dir, "goondan.yaml"), ["maxStepsPerTurn: 8", "maxStepsPerTurn: 3"]);
    await waitFor(() => changes.length > 0, watcher);
    expect(changes[0]?.diff).toEqual({ agents: ["planner", "writer"], swarmChanged: true, connections: [] });
  });

  it("starts watching a helper a tool begins to import", async () => {
    const { dir, watcher, changes } = await setup();
    writeFileSync(join(dir, "tools/lib/time.ts"), "export const epoch = () => new Date(0).toISOString();\n");
    writeFileSync(
      join(dir, "tools/clock.ts"),
      'import { epoch } from "./lib/time.ts";\nexport const handlers = { now: () => epoch() };\n',
    );
    await waitFor(() => changes.length > 0, watcher);
    expect(watcher.files()).toContain(join(dir, "tools/lib/time.ts"));
    edit(join(dir, "tools/lib/time.ts"), ["new Date(0)", "new Date(1)"]);
    await waitFor(() => changes.length > 1, watcher);
    expect(changes[1]?.diff.agents).toEqual(["writer"]);
  });

  it("reloads when a new agents.yaml appears next to goondan.yaml, and watches it from then on", async () => {
    const { dir, watcher, changes } = await setup();
    const agents = join(dir, "agents.yaml");
    writeFileSync(
      agents,
      'apiVersion: goondan.ai/v1\nkind: Agent\nmetadata: { name: critic }\nspec: { modelConfig: { modelRef: "Model/default" }, prompt: { system: "You critique." } }\n',
    );
    await waitFor(() => changes.length > 0, watcher);
    expect(changes[0]?.changedFiles).toEqual([agents]);
    expect(
      changes[0]?.next.resources.some((resource) => resource.kind === "Agent" && resource.metadata.name === "critic"),
    ).toBe(true);
    expect(watcher.files()).toContain(agents);
    edit(agents, ["You critique.", "You critique harshly."]);
    await waitFor(() => changes.length > 1, watcher);
    expect(changes[1]?.changedFiles).toEqual([agents]);
  });

  it("ignores other files in the bundle dir while the bundle is valid", async () => {
    const { dir, watcher, changes, invalid, loads } = await setup();
    writeFileSync(join(dir, "notes.txt"), "scratch");
    await new Promise((resolve) => setTimeout(resolve, 300));
    await watcher.idle();
    expect(loads()).toBe(0);
    expect(changes).toEqual([]);
    expect(invalid).toEqual([]);
  });

  it("re-validates when a file a broken bundle was missing appears", async () => {
    const { dir, watcher, changes, invalid } = await setup();
    const yaml = join(dir, "goondan.yaml");
    edit(yaml, ["entry: ./tools/clock.ts", "entry: ./tools/clock2.ts"]);
    await waitFor(() => invalid.length > 0, watcher);
    expect(invalid[0]?.errors.map((issue) => issue.code)).toContain("E_CONFIG_ENTRY_NOT_FOUND");
    writeFileSync(join(dir, "tools/clock2.ts"), "export const handlers = { now: () => 'later' };\n");
    await waitFor(() => changes.length > 0, watcher);
    expect(changes[0]?.diff.agents).toEqual(["writer"]);
  });
});
