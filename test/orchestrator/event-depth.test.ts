import { describe, expect, it } from "bun:test";
import { apiFixture } from "../http/api-fixture.ts";

describe("Orchestrator.submit with deeply nested metadata", () => {
  it("refuses it with E_EVENT_TOO_DEEP before anything is stored or spawned", async () => {
    const { orchestrator, spawner } = apiFixture();
    let metadata: Record<string, unknown> = {};
    for (let index = 0; index < 100_000; index++) metadata = { next: metadata };
    expect(() => orchestrator.submit({ input: "hi", metadata: metadata as never })).toThrow(
      expect.objectContaining({ code: "E_EVENT_TOO_DEEP" }),
    );
    expect(spawner.children).toHaveLength(0);
    expect(await orchestrator.instances()).toEqual([]);
  });
});
