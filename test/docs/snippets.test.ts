import { afterAll, describe, expect, it } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { codeBlocks } from "./markdown-blocks.ts";
import { EXAMPLE_INPUT } from "../examples/example-script.ts";
import { createScratch, removeScratch, REPO, runBlock, stopScratch, type DocScratch } from "./snippet-runner.ts";

function markdownFiles(): string[] {
  const docs = join(REPO, "docs");
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith(".md") ? [join(dir, entry.name)] : [],
    );
  const examples = join(REPO, "examples");
  return [join(REPO, "README.md"), ...walk(docs), ...walk(examples)];
}

describe("codeBlocks", () => {
  it("splits the info string into language, tags and attributes", async () => {
    const { codeBlocks: extract } = await import("./markdown-blocks.ts");
    const blocks = extract({
      source: "x.md",
      markdown: "a\n```ts tool file=tools/a.ts\nexport {};\n```\n~~~~text\n```\n~~~~\n",
    });
    expect(blocks.map(({ lang, tags, attributes, line, code }) => ({ lang, tags, attributes, line, code }))).toEqual([
      { lang: "ts", tags: ["tool"], attributes: { file: "tools/a.ts" }, line: 2, code: "export {};\n" },
      { lang: "text", tags: [], attributes: {}, line: 5, code: "```\n" },
    ]);
  });

  it("refuses a fence that never closes", async () => {
    const { codeBlocks: extract } = await import("./markdown-blocks.ts");
    expect(() => extract({ source: "x.md", markdown: "```sh\necho\n" })).toThrow();
  });
});

describe("a compose block shown as a shipped file (same-as=PATH)", () => {
  const shipped = "docker/compose.cluster.yaml";
  const block = codeBlocks({
    source: "docs/cluster.md",
    markdown: readFileSync(join(REPO, "docs", "cluster.md"), "utf8"),
  }).find((candidate) => candidate.attributes["same-as"] === shipped);

  it("is how docs/cluster.md shows docker/compose.cluster.yaml", () => {
    expect(block?.code).toBe(readFileSync(join(REPO, shipped), "utf8"));
  });

  it("fails the test when it drifts from the file", async () => {
    const scratch = createScratch();
    try {
      const drifted = { ...block!, code: block!.code.replace("GOONDAN_NODE: n3", "GOONDAN_NODE: n4") };
      expect(drifted.code).not.toBe(block!.code);
      await expect(runBlock({ block: drifted, scratch })).rejects.toThrow(`differs from ${shipped}`);
    } finally {
      removeScratch(scratch);
    }
  });
});

describe("README.md", () => {
  it("starts with exactly the two set-up commands: the main job, then the tests", () => {
    const markdown = readFileSync(join(REPO, "README.md"), "utf8");
    const top = markdown.slice(0, markdown.indexOf("\n## "));
    const blocks = codeBlocks({ source: "README.md", markdown: top });
    expect(
      blocks.map((block) => ({
        tags: [block.lang, ...block.tags].join(" "),
        lines: block.code.trimEnd().split("\n").length,
      })),
    ).toEqual([
      { tags: "sh", lines: 1 },
      { tags: "sh suite", lines: 1 },
    ]);
    expect(blocks[0]!.code.trim()).toBe(`npm install && npx goondan run --input ${JSON.stringify(EXAMPLE_INPUT)}`);
    expect(blocks[1]!.code.trim()).toBe("npm install && npm test");
  });
});

const scratches: DocScratch[] = [];
// Removing every doc's scratch directory takes seconds on a loaded machine: more than a hook's default 5 s.
afterAll(async () => {
  for (const scratch of scratches) {
    await stopScratch(scratch);
    removeScratch(scratch);
  }
}, 60_000);

for (const file of markdownFiles()) {
  const source = relative(REPO, file);
  const blocks = codeBlocks({ source, markdown: readFileSync(file, "utf8") });
  describe(source, () => {
    const scratch = createScratch();
    scratches.push(scratch);
    // Blocks share the doc's scratch directory and run in order, like a reader following along.
    for (const block of blocks) {
      it(`runs or validates the ${[block.lang, ...block.tags].join(" ") || "untagged"} block at line ${block.line}`, async () => {
        await runBlock({ block, scratch });
        expect(block.lang).not.toBe("");
      }, 90_000);
    }
    it("shuts its daemon down cleanly", async () => {
      const daemon = scratch.daemon;
      await stopScratch(scratch);
      if (daemon) expect(await daemon.process.exited).toBe(0);
      else expect(scratch.daemon).toBeUndefined();
    }, 60_000);
  });
}
