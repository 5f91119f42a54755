/**
 * `goondan instance archive`: the older part of a conversation moves to a file beside the instance, never silently,
 * cut where no tool result is parted from its call, and never while the instance is live.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import type { ModelMessage } from "ai";
import { createMessage } from "../../src/agent/conversation/message-factory.ts";
import { main } from "../../src/cli/main.ts";
import { archiveCut } from "../../src/cli/operator/archive-conversation.ts";
import { storedInstanceState } from "../helpers/stored-state.ts";
import { capture, cleanUpOperatorFixtures, fakeApi, seedInstance, stateRoot } from "./support/operator-fixture.ts";

afterEach(cleanUpOperatorFixtures);

const message = (id: string, data: ModelMessage) => createMessage({ id, data, source: { type: "user" }, now: 0 });

describe("goondan instance archive", () => {
  it("moves all but the last --keep messages to archive/<time>.jsonl and says so", async () => {
    const root = stateRoot();
    const paths = await seedInstance(root, { agent: "planner", instanceKey: "team", messages: 30 });
    const port = fakeApi(() => Response.json({ instances: [] }));
    const { io, out } = capture();
    expect(
      await main(["instance", "archive", "planner", "team", "--keep", "10", "--state-root", root, "--port", port], io),
    ).toBe(0);
    const file = /to (\S+\.jsonl); 10 kept/.exec(out.stdout)?.[1];
    expect(out.stdout).toContain("archived 20 messages of team/planner/team");
    expect(file?.startsWith(`${paths.root}/archive/`)).toBe(true);
    const archived = readFileSync(file as string, "utf8")
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(archived).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    const left = (
      await storedInstanceState({ stateRoot: root, swarm: "team", agent: "planner", instanceKey: "team" })
    ).messages.map((m) => m.id);
    expect(left).toEqual(Array.from({ length: 10 }, (_, i) => `m${i + 20}`));

    const again = capture();
    expect(
      await main(
        ["instance", "archive", "planner", "team", "--keep", "10", "--state-root", root, "--port", port],
        again.io,
      ),
    ).toBe(0);
    expect(again.out.stdout).toContain("nothing to archive: team/planner/team has 10 messages");
  });

  it("refuses while the running orchestrator has the instance live", async () => {
    const root = stateRoot();
    await seedInstance(root, { agent: "planner", instanceKey: "team", messages: 5 });
    const port = fakeApi(() =>
      Response.json({ instances: [{ agent: "planner", instanceKey: "team", status: "idle", pid: 1234 }] }),
    );
    const { io, out } = capture();
    expect(
      await main(["instance", "archive", "planner", "team", "--keep", "1", "--state-root", root, "--port", port], io),
    ).toBe(1);
    expect(out.stderr).toContain("is running");
    expect(
      (await storedInstanceState({ stateRoot: root, swarm: "team", agent: "planner", instanceKey: "team" })).messages,
    ).toHaveLength(5);
  });

  it("cuts back to a user message, so at least --keep stay and no tool result is parted from its call", () => {
    const conversation = [
      message("u1", { role: "user", content: "one" }),
      message("a1", {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "t__x", input: {} }],
      }),
      message("t1", {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "t__x", output: { type: "json", value: 1 } }],
      }),
      message("a2", { role: "assistant", content: "done" }),
      message("u2", { role: "user", content: "two" }),
      message("a3", { role: "assistant", content: "ok" }),
    ];
    expect(archiveCut(conversation, 2)).toBe(4); // u2, a3 stay
    expect(archiveCut(conversation, 1)).toBe(4); // a3 alone would start mid-exchange: back to u2
    expect(archiveCut(conversation, 3)).toBe(0); // a2 would part the exchange from u1: everything stays
    expect(archiveCut(conversation, 6)).toBe(0);
    expect(archiveCut(conversation, 0)).toBe(6);
  });
});
