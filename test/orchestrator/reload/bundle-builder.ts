/**
 * Builds small in-memory Bundles for the reload tests, with defaults applied the way the config plane
 * would, so that a test states only what it changes.
 */
import type { AnyResource, Bundle, SwarmPolicy } from "../../../src/config/types.ts";
import { API_VERSION, BUILTIN_PACKAGE } from "../../../src/config/types.ts";
import { defaultPolicy } from "../../../src/config/defaults.ts";

export const BUNDLE_DIR = "/bundle";

/** The policy the config plane applies when a Swarm sets none. */
export { defaultPolicy };

const source = (docIndex: number, builtin = false) => ({
  file: builtin ? "/goondan/src/base/goondan.yaml" : `${BUNDLE_DIR}/goondan.yaml`,
  docIndex,
  baseDir: builtin ? "/goondan/src/base" : BUNDLE_DIR,
  ...(builtin ? { package: BUILTIN_PACKAGE } : {}),
});

export function resource(
  kind: AnyResource["kind"],
  name: string,
  spec: unknown,
  options: { builtin?: boolean; docIndex?: number } = {},
): AnyResource {
  return {
    apiVersion: API_VERSION,
    kind,
    metadata: { name },
    spec,
    source: source(options.docIndex ?? 0, options.builtin),
  } as AnyResource;
}

export const model = (name: string, modelName = "m1") =>
  resource("Model", name, { provider: "openai-compatible", model: modelName });
export const tool = (name: string, entry = `./tools/${name}.ts`) =>
  resource("Tool", name, {
    entry,
    errorMessageLimit: 1000,
    exports: [{ name: "run", parameters: { type: "object" } }],
  });
export const extension = (name: string, config: Record<string, number> = {}) =>
  resource("Extension", name, { entry: `./extensions/${name}.ts`, config });
export const agent = (
  name: string,
  options: { model?: string; tools?: string[]; extensions?: string[]; system?: string; systemRef?: string } = {},
) =>
  resource("Agent", name, {
    modelConfig: { modelRef: { kind: "Model", name: options.model ?? "default" }, params: {} },
    prompt: options.systemRef ? { systemRef: options.systemRef } : { system: options.system ?? `You are ${name}.` },
    tools: (options.tools ?? []).map((toolName) => ({ kind: "Tool", name: toolName })),
    extensions: (options.extensions ?? []).map((extensionName) => ({
      ref: { kind: "Extension", name: extensionName },
    })),
  });
export const swarm = (name: string, agents: string[], policy: SwarmPolicy = defaultPolicy()) =>
  resource("Swarm", name, {
    entryAgent: { kind: "Agent", name: agents[0] },
    agents: agents.map((agentName) => ({ kind: "Agent", name: agentName })),
    instanceKey: name,
    policy,
  });
export const connector = (name: string, entry = `./connectors/${name}.ts`) =>
  resource("Connector", name, { entry, events: [{ name: "message" }] });
export const connection = (name: string, connectorName: string, config: Record<string, unknown> = {}) =>
  resource("Connection", name, {
    connectorRef: { kind: "Connector", name: connectorName },
    config,
    ingress: { rules: [] },
  });

export const bundle = (...resources: AnyResource[]): Bundle => ({
  dir: BUNDLE_DIR,
  file: `${BUNDLE_DIR}/goondan.yaml`,
  resources,
});
