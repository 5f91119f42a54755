import { afterEach, describe, expect, it } from "bun:test";
import { main } from "../../src/cli/main.ts";
import type { RuntimeEvent } from "../../src/protocol/runtime-event.ts";
import {
  appendToStore,
  capture,
  cleanUpOperatorFixtures,
  event,
  seedInstance,
  stateRoot,
} from "./support/operator-fixture.ts";
import { realProcessTimeouts } from "../helpers/cleanups.ts";

realProcessTimeouts();

afterEach(cleanUpOperatorFixtures);

describe("goondan logs", () => {
  it("prints every instance's runtime events oldest first, one readable line each", async () => {
    const root = stateRoot();
    await seedInstance(root, {
      agent: "planner",
      instanceKey: "team",
      events: [
        event("2026-01-01T00:00:02.000Z", "planner", "team", "turn.completed", {
          turnId: "trn_1",
          durationMs: 1200,
          usage: { inputTokens: 10, outputTokens: 4 },
        }),
      ],
    });
    await seedInstance(root, {
      agent: "writer",
      instanceKey: "team",
      events: [
        event("2026-01-01T00:00:01.000Z", "writer", "team", "tool.failed", {
          toolName: "bash__exec",
          error: { code: "E_TOOL", message: "boom" },
        }),
      ],
    });
    const { io, out } = capture();
    expect(await main(["logs", "--state-root", root], io)).toBe(0);
    expect(out.stdout).toBe(
      '2026-01-01T00:00:01.000Z writer/team tool.failed tool=bash__exec error=E_TOOL "boom"\n2026-01-01T00:00:02.000Z planner/team turn.completed turn=trn_1 1200ms tokens=10/4\n',
    );
  });

  it("names the extension and hook of an extension.failed event", async () => {
    const root = stateRoot();
    await seedInstance(root, {
      agent: "planner",
      instanceKey: "team",
      events: [
        event("2026-01-01T00:00:01.000Z", "planner", "team", "extension.failed", {
          turnId: "trn_2",
          data: { extension: "memory", hook: "turn" },
          error: { code: "E_EXTENSION_FAILED", message: "lost" },
        }),
      ],
    });
    const { io, out } = capture();
    expect(await main(["logs", "--state-root", root], io)).toBe(0);
    expect(out.stdout).toBe(
      '2026-01-01T00:00:01.000Z planner/team extension.failed turn=trn_2 extension=memory hook=turn error=E_EXTENSION_FAILED "lost"\n',
    );
  });

  it("filters by agent and instance, and prints JSON lines with --format json", async () => {
    const root = stateRoot();
    await seedInstance(root, {
      agent: "planner",
      instanceKey: "a",
      events: [event("2026-01-01T00:00:01.000Z", "planner", "a", "turn.started")],
    });
    await seedInstance(root, {
      agent: "planner",
      instanceKey: "b",
      events: [event("2026-01-01T00:00:02.000Z", "planner", "b", "turn.started")],
    });
    await seedInstance(root, {
      agent: "writer",
      instanceKey: "a",
      events: [event("2026-01-01T00:00:03.000Z", "writer", "a", "turn.started")],
    });
    const { io, out } = capture();
    expect(
      await main(["logs", "--state-root", root, "--agent", "planner", "--instance", "b", "--format", "json"], io),
    ).toBe(0);
    expect(
      out.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).instanceKey),
    ).toEqual(["b"]);
  });

  it("says so on stderr and exits 0 when nothing matches", async () => {
    const { io, out } = capture();
    expect(await main(["logs", "--state-root", stateRoot(), "--agent", "ghost"], io)).toBe(0);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("no runtime events for agent ghost");
  });

  it("follows new events until interrupted, then exits 130", async () => {
    const root = stateRoot();
    await seedInstance(root, {
      agent: "planner",
      instanceKey: "team",
      events: [event("2026-01-01T00:00:01.000Z", "planner", "team", "turn.started")],
    });
    const child = Bun.spawn(
      [
        process.execPath,
        new URL("../../bin/goondan", import.meta.url).pathname,
        "logs",
        "--follow",
        "--state-root",
        root,
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    const reader = child.stdout.getReader();
    let seen = "";
    const readUntil = async (needle: string) => {
      const deadline = Date.now() + 10_000;
      while (!seen.includes(needle)) {
        if (Date.now() > deadline) throw new Error(`did not see ${needle}; got ${seen}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended; got ${seen}`);
        seen += new TextDecoder().decode(value);
      }
    };
    await readUntil("turn.started");
    await appendToStore(root, (store) => {
      store.appendRuntimeEvents("team", [
        event("2026-01-01T00:00:05.000Z", "planner", "team", "turn.completed") as unknown as RuntimeEvent,
      ]);
    });
    await readUntil("turn.completed");
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
  });
});
