/**
 * Where a child's stdout and stderr go: a file descriptor it writes to directly, nowhere ("ignore"), or a line
 * sink in this process, which receives every complete line the child writes (its pino JSON records, a crash
 * trace, a tool's stray output) so the orchestrator can decide where each goes (the run log, the terminal).
 */

/** Receives one line (without its newline) a child wrote to stdout or stderr. */
export type ChildLineSink = (line: string) => void;

export type ChildOutput = number | "ignore" | ChildLineSink;

/** What Bun.spawn takes for a stream: the fd, "ignore", or "pipe" when lines go to a sink. */
export function spawnStdio(output: ChildOutput): number | "ignore" | "pipe" {
  return typeof output === "function" ? "pipe" : output;
}

/** Reads a child's stream to its end, handing each complete line to `sink` (a last unterminated line too). */
export async function pumpLines(stream: ReadableStream<Uint8Array>, sink: ChildLineSink): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  try {
    for await (const chunk of stream) {
      pending += decoder.decode(chunk, { stream: true });
      let newline = pending.indexOf("\n");
      while (newline >= 0) {
        sink(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
      }
    }
  } catch {
    // the child is gone mid-read: what arrived was handed over
  }
  pending += decoder.decode();
  if (pending !== "") sink(pending);
}
