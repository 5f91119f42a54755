/**
 * Built-in extension `tool-search`: gives the model a search tool (`tool-search__search` by default) over the
 * tools this agent has. A search selects the best matches (words of the query starting words of tool names
 * and descriptions, names weighing more) and, from the next step on, the model is offered only the selected
 * tools plus the search tool, until another search; a search that finds nothing offers everything again. Before the
 * first search every tool is offered, as upstream Goondan does, unless `exposeAllBeforeSearch` is false (then
 * only the search tool and `alwaysInclude`). With `persistSelection` (default) the selection survives turns
 * and restarts (extension state); otherwise it lasts until the turn ends.
 */
import type { ExtensionApi, JsonObject, ToolCatalogItem } from "../../index.ts";

export interface ToolSearchSettings {
  toolName: string;
  maxResults: number;
  minQueryLength: number;
  persistSelection: boolean;
  exposeAllBeforeSearch: boolean;
  alwaysInclude: string[];
}

interface Selection {
  selectedTools: string[];
  lastQuery?: string;
}

export function toolSearchSettings(config: JsonObject): ToolSearchSettings {
  const positive = (key: string, fallback: number) =>
    typeof config[key] === "number" && (config[key] as number) >= 1 ? Math.floor(config[key] as number) : fallback;
  return {
    toolName:
      typeof config.toolName === "string" && config.toolName.includes("__") ? config.toolName : "tool-search__search",
    maxResults: positive("maxResults", 10),
    minQueryLength: typeof config.minQueryLength === "number" && config.minQueryLength >= 0 ? config.minQueryLength : 1,
    persistSelection: config.persistSelection !== false,
    exposeAllBeforeSearch: config.exposeAllBeforeSearch !== false,
    alwaysInclude: Array.isArray(config.alwaysInclude)
      ? config.alwaysInclude.filter((name): name is string => typeof name === "string")
      : [],
  };
}

const STOP_WORDS = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "in",
  "on",
  "for",
  "and",
  "or",
  "with",
  "my",
  "me",
  "it",
  "is",
  "some",
  "that",
  "this",
]);
const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);

/**
 * Tools matching the query, best first: a query word that starts a word of the tool's name counts 3, of its
 * description 1 (common words do not count); the whole query inside the name adds 5. Only tools scoring at
 * least half the best score are kept, at most `limit`.
 */
export function searchTools(catalog: readonly ToolCatalogItem[], query: string, limit: number): ToolCatalogItem[] {
  const phrase = query.trim().toLowerCase();
  const words = wordsOf(phrase).filter((word) => !STOP_WORDS.has(word));
  const scored = catalog.map((item, index) => {
    const nameWords = wordsOf(item.name);
    const descriptionWords = wordsOf(item.description ?? "");
    let score = phrase !== "" && item.name.toLowerCase().includes(phrase) ? 5 : 0;
    for (const word of words)
      score +=
        (nameWords.some((candidate) => candidate.startsWith(word)) ? 3 : 0) +
        (descriptionWords.some((candidate) => candidate.startsWith(word)) ? 1 : 0);
    return { item, index, score };
  });
  const best = Math.max(0, ...scored.map((entry) => entry.score));
  return scored
    .filter((entry) => entry.score > 0 && entry.score * 2 >= best)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map((entry) => entry.item);
}

function readSelection(value: unknown): Selection {
  const record = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  return {
    selectedTools: Array.isArray(record.selectedTools)
      ? record.selectedTools.filter((name): name is string => typeof name === "string")
      : [],
    ...(typeof record.lastQuery === "string" ? { lastQuery: record.lastQuery } : {}),
  };
}

export function register(api: ExtensionApi, config: JsonObject): void {
  const settings = toolSearchSettings(config);
  let snapshot: ToolCatalogItem[] = [];
  let selection: Selection = settings.persistSelection ? readSelection(api.state.get()) : { selectedTools: [] };
  let searched = selection.selectedTools.length > 0;

  api.tools.register(
    {
      name: settings.toolName,
      description:
        "Find the tools you need for a task: describe it in a few words. The tools found are offered to you from your next step on (each search replaces the previous selection).",
      parameters: {
        type: "object",
        properties: {
          query: {
            type: "string",
            minLength: 1,
            maxLength: 500,
            description: 'What you want to do, e.g. "send a slack message".',
          },
          limit: {
            type: "integer",
            minimum: 1,
            maximum: 100,
            description: `At most this many tools (default and cap ${settings.maxResults}).`,
          },
        },
        required: ["query"],
        additionalProperties: false,
      },
    },
    async (_ctx, input) => {
      const query = String(input.query);
      if (query.trim().length < settings.minQueryLength) return { query, results: [], selectedTools: [] };
      const limit = Math.min(
        settings.maxResults,
        typeof input.limit === "number" ? Math.max(1, Math.floor(input.limit)) : settings.maxResults,
      );
      const results = searchTools(snapshot, query, limit);
      selection = { selectedTools: results.map((item) => item.name), lastQuery: query };
      searched = true;
      if (settings.persistSelection) await api.state.set({ selectedTools: selection.selectedTools, lastQuery: query });
      return {
        query,
        results: results.map((item) => ({
          name: item.name,
          ...(item.description === undefined ? {} : { description: item.description }),
        })),
        selectedTools: selection.selectedTools,
      };
    },
  );

  if (!settings.persistSelection) {
    api.pipeline.register("turn", async (ctx) => {
      try {
        return await ctx.next();
      } finally {
        selection = { selectedTools: [] };
        searched = false;
      }
    });
  }

  // Inner (priority 100): sees the catalog as the other extensions left it.
  api.pipeline.register(
    "step",
    async (ctx) => {
      snapshot = ctx.toolCatalog.filter((item) => item.name !== settings.toolName);
      const keep = new Set([settings.toolName, ...settings.alwaysInclude]);
      if (selection.selectedTools.length > 0) {
        for (const name of selection.selectedTools) keep.add(name);
        ctx.toolCatalog = ctx.toolCatalog.filter((item) => keep.has(item.name));
      } else if (!settings.exposeAllBeforeSearch && !searched) {
        ctx.toolCatalog = ctx.toolCatalog.filter((item) => keep.has(item.name));
      }
      return ctx.next();
    },
    { priority: 100 },
  );
}
