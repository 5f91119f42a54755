/**
 * Reading a loaded bundle: finding resources and resolving refs (local first, then @goondan/base),
 * choosing the Swarm, and the agents, tools, extensions (merged config), model, entries and prompts
 * other layers ask for.
 */
import { beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { loadBundleOrThrow } from "../../src/config/load-bundle.ts";
import {
  agentExtensions,
  agentModel,
  agentTools,
  findResource,
  mergeConfig,
  readSystemPrompt,
  resolveEntry,
  resolveRef,
  selectSwarm,
  swarmAgents,
  swarmConnections,
} from "../../src/config/resolve.ts";
import { BUILTIN_PACKAGE, type AgentResource, type Bundle } from "../../src/config/types.ts";
import { ConfigError } from "../../src/shared/errors.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/bundles");
let bundle: Bundle;
let planner: AgentResource;

beforeAll(async () => {
  bundle = await loadBundleOrThrow(join(FIXTURES, "every-kind"));
  planner = findResource(bundle, "Agent", "planner") as AgentResource;
});

function thrownBy(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError, nothing was thrown");
}

describe("findResource and resolveRef", () => {
  it("finds local resources and built-ins by kind and name", () => {
    expect(findResource(bundle, "Model", "claude")?.spec.provider).toBe("anthropic");
    expect(findResource(bundle, "Tool", "bash")?.source.package).toBe(BUILTIN_PACKAGE);
    expect(findResource(bundle, "Tool", "notes", BUILTIN_PACKAGE)).toBeUndefined();
    expect(findResource(bundle, "Model", "nope")).toBeUndefined();
  });

  it("resolves a ref with package @goondan/base to the built-in", () => {
    const tool = resolveRef(bundle, { kind: "Tool", name: "agents", package: BUILTIN_PACKAGE });
    expect(tool.metadata.name).toBe("agents");
    expect(tool.source.package).toBe(BUILTIN_PACKAGE);
  });

  it("throws E_CONFIG_REF_NOT_FOUND with the defined names for a missing ref", () => {
    const error = thrownBy(() => resolveRef(bundle, { kind: "Model", name: "claud" }));
    expect(error.code).toBe("E_CONFIG_REF_NOT_FOUND");
    expect(error.suggestion?.startsWith("defined models: claude")).toBe(true);
  });
});

describe("selectSwarm", () => {
  it("returns the only Swarm, or the named one", () => {
    expect(selectSwarm(bundle).metadata.name).toBe("team");
    expect(selectSwarm(bundle, "team").metadata.name).toBe("team");
  });

  it("throws E_CONFIG_SWARM_NOT_FOUND for an unknown name or a bundle without Swarm", () => {
    expect(thrownBy(() => selectSwarm(bundle, "teem")).code).toBe("E_CONFIG_SWARM_NOT_FOUND");
    const noSwarm: Bundle = { ...bundle, resources: bundle.resources.filter((resource) => resource.kind !== "Swarm") };
    expect(thrownBy(() => selectSwarm(noSwarm)).code).toBe("E_CONFIG_SWARM_NOT_FOUND");
  });

  it("throws E_CONFIG_SWARM_AMBIGUOUS when several Swarms exist and none is named", () => {
    const team = selectSwarm(bundle);
    const twoSwarms: Bundle = { ...bundle, resources: [...bundle.resources, { ...team, metadata: { name: "other" } }] };
    expect(thrownBy(() => selectSwarm(twoSwarms)).code).toBe("E_CONFIG_SWARM_AMBIGUOUS");
    expect(selectSwarm(twoSwarms, "other").metadata.name).toBe("other");
  });
});

describe("an agent's parts", () => {
  it("lists the Swarm's agents in order", () => {
    expect(swarmAgents(bundle, selectSwarm(bundle)).map((agent) => agent.metadata.name)).toEqual(["planner", "writer"]);
  });

  it("lists the agent's tools, local and built-in", () => {
    expect(agentTools(bundle, planner).map((tool) => `${tool.source.package}:${tool.metadata.name}`)).toEqual([
      "every-kind:notes",
      `${BUILTIN_PACKAGE}:agents`,
      `${BUILTIN_PACKAGE}:bash`,
    ]);
  });

  it("merges an extension item's config deeply over Extension.spec.config", () => {
    const extensions = agentExtensions(bundle, planner);
    expect(extensions.map(({ resource }) => resource.metadata.name).slice(0, 3)).toEqual([
      "memory",
      "memory",
      "message-window",
    ]);
    expect(extensions[0]?.config).toEqual({ window: 20, store: { kind: "file", path: "./memory" } });
    expect(extensions[1]?.config).toEqual({ window: 5, store: { kind: "file", path: "./planner-memory" } });
    expect(extensions[2]?.config).toEqual(findResource(bundle, "Extension", "message-window")?.spec.config ?? {});
  });

  it("adds the built-in required-tools-guard last, with the Agent's requiredTools, to an Agent that lists none", () => {
    const extensions = agentExtensions(bundle, planner);
    expect(extensions.length).toBe(4);
    expect(extensions[3]?.resource.metadata.name).toBe("required-tools-guard");
    expect(extensions[3]?.resource.source.package).toBe(BUILTIN_PACKAGE);
    expect(extensions[3]?.config).toMatchObject({ requiredTools: ["notes__add"] });
  });

  it("adds no second guard to an Agent that lists required-tools-guard, and none to an Agent without requiredTools", () => {
    const guardRef = { kind: "Extension", name: "required-tools-guard", package: BUILTIN_PACKAGE };
    const listing = {
      ...planner,
      spec: { ...planner.spec, extensions: [...planner.spec.extensions, { ref: guardRef }] },
    };
    const names = agentExtensions(bundle, listing as AgentResource).map(({ resource }) => resource.metadata.name);
    expect(names.filter((name) => name === "required-tools-guard").length).toBe(1);
    expect(agentExtensions(bundle, listing as AgentResource).at(-1)?.config).not.toHaveProperty("requiredTools");
    const { requiredTools: _unused, ...withoutRequired } = planner.spec;
    const plain = { ...planner, spec: withoutRequired } as AgentResource;
    expect(agentExtensions(bundle, plain).map(({ resource }) => resource.metadata.name)).not.toContain(
      "required-tools-guard",
    );
  });

  it("replaces arrays and scalars when merging config", () => {
    expect(mergeConfig({ list: [1, 2], keep: true, nested: { a: 1 } }, { list: [3], nested: { b: 2 } })).toEqual({
      list: [3],
      keep: true,
      nested: { a: 1, b: 2 },
    });
  });

  it("resolves the agent's model", () => {
    expect(agentModel(bundle, planner).metadata.name).toBe("claude");
  });

  it("resolves entries to absolute paths, built-ins under src/base", () => {
    expect(resolveEntry(findResource(bundle, "Tool", "notes")!)).toBe(
      join(FIXTURES, "every-kind", "tools", "notes.ts"),
    );
    expect(resolveEntry(findResource(bundle, "Tool", "bash")!)).toBe(
      join(import.meta.dir, "../../src/base/tools/bash.ts"),
    );
  });

  it("reads the system prompt from systemRef, inline text, or gives an empty one", async () => {
    expect(await readSystemPrompt(bundle, planner)).toBe("You plan. Write notes with notes__add.\n");
    expect(await readSystemPrompt(bundle, findResource(bundle, "Agent", "writer")!)).toBe("You write.\nBriefly.\n");
    expect(await readSystemPrompt(bundle, { ...planner, spec: { ...planner.spec, prompt: {} } })).toBe("");
  });

  it("lists the Connections bound to a Swarm", () => {
    expect(swarmConnections(bundle, selectSwarm(bundle)).map((connection) => connection.metadata.name)).toEqual([
      "inbox-to-team",
    ]);
  });
});
