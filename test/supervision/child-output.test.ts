/**
 * A child's output handed to a line sink: every complete line of stdout and stderr, split where the child wrote
 * newlines however the pipe chunked them, a last unterminated line too; a real Bun child proves the spawner pipes.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pumpLines } from "../../src/supervision/child-output.ts";
import { bunProcessSpawner } from "../../src/supervision/process-spawner.ts";

const streamOf = (chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

describe("pumpLines", () => {
  it("hands over whole lines however the chunks cut them, and the last line without a newline", async () => {
    const lines: string[] = [];
    await pumpLines(streamOf(['{"a":', '1}\n{"b"', ":2}\n\nta", "il"]), (line) => void lines.push(line));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', "", "tail"]);
  });

  it("keeps a multi-byte character cut between two chunks whole", async () => {
    const bytes = new TextEncoder().encode("héllo\n");
    const lines: string[] = [];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 2));
        controller.enqueue(bytes.slice(2));
        controller.close();
      },
    });
    await pumpLines(stream, (line) => void lines.push(line));
    expect(lines).toEqual(["héllo"]);
  });
});

describe("bunProcessSpawner with a line sink", () => {
  it("delivers a real child's stdout and stderr lines to the sink", async () => {
    const dir = mkdtempSync(join(tmpdir(), "goondan-child-output-"));
    const script = join(dir, "child.ts");
    writeFileSync(
      script,
      'console.log(JSON.stringify({ level: 30, msg: "agent ready" }));\nconsole.error("a stray line");\nprocess.exit(0);\n',
    );
    const lines: string[] = [];
    const child = bunProcessSpawner({ entryScript: script, output: (line) => void lines.push(line) }).spawn({
      address: "t/1",
      argv: [],
    });
    await new Promise<void>((resolve) => child.onExit(() => resolve()));
    const deadline = Date.now() + 5000;
    while (lines.length < 2 && Date.now() < deadline) await Bun.sleep(10);
    expect(lines.sort()).toEqual(['{"level":30,"msg":"agent ready"}', "a stray line"].sort());
    rmSync(dir, { recursive: true, force: true });
  });
});
