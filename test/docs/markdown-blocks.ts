/**
 * Extracts the fenced code blocks of a Markdown file with their info string split into a language, tags
 * and `key=value` attributes: ```` ```ts tool file=tools/echo.ts ```` → lang `ts`, tags [`tool`],
 * attributes {file: `tools/echo.ts`}. The docs-snippet test decides from these how to run each block.
 */
export interface CodeBlock {
  /** Markdown file the block is in (as given). */
  source: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  tags: string[];
  attributes: Record<string, string>;
  code: string;
}

export function codeBlocks(options: { source: string; markdown: string }): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = options.markdown.split("\n");
  let open: { fence: string; info: string; line: number; body: string[] } | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    if (open === undefined) {
      const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
      if (match) open = { fence: match[1] as string, info: (match[2] as string).trim(), line: index + 1, body: [] };
      continue;
    }
    const closing = new RegExp(`^ {0,3}${open.fence[0] === "`" ? "`" : "~"}{${open.fence.length},}\\s*$`);
    if (closing.test(line)) {
      const words = open.info.split(/\s+/).filter((word) => word !== "");
      const attributes: Record<string, string> = {};
      const tags: string[] = [];
      for (const word of words.slice(1)) {
        const eq = word.indexOf("=");
        if (eq > 0) attributes[word.slice(0, eq)] = word.slice(eq + 1);
        else tags.push(word);
      }
      blocks.push({
        source: options.source,
        line: open.line,
        lang: words[0] ?? "",
        tags,
        attributes,
        code: `${open.body.join("\n")}\n`,
      });
      open = undefined;
    } else {
      open.body.push(line);
    }
  }
  if (open !== undefined) throw new Error(`${options.source}:${open.line}: code fence is never closed`);
  return blocks;
}
