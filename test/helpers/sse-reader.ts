/**
 * A test's reader of a `text/event-stream` answer: parses events (`event:` + JSON `data:`) and comments as they
 * arrive; `next(name)` waits for the next event of that name, `rest()` reads to the end, `more()` reads one chunk.
 */
/** Reads an SSE body as it comes; `next(name)` resolves with the data of the next event of that name. */
export function sseReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const seen: { event: string; data: any }[] = [];
  const comments: string[] = [];
  async function pull(): Promise<boolean> {
    const { done, value } = await reader.read();
    if (done) return false;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.startsWith(":")) {
        comments.push(block);
        continue;
      }
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      seen.push({ event, data: JSON.parse(data) });
    }
    return true;
  }
  let read = 0;
  return {
    seen,
    comments,
    async next(name?: string): Promise<{ event: string; data: any }> {
      for (;;) {
        while (read < seen.length) {
          const item = seen[read++]!;
          if (name === undefined || item.event === name) return item;
        }
        if (!(await pull())) throw new Error(`stream ended before ${name ?? "an event"}; saw ${JSON.stringify(seen)}`);
      }
    },
    async rest(): Promise<{ event: string; data: any }[]> {
      while (await pull());
      return seen.slice(read);
    },
    /** Reads what arrives next (comments too). */
    more: pull,
    cancel: () => reader.cancel(),
  };
}
