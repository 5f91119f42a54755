/**
 * `goondan logs --port` and `goondan instance list --port`: read through a running orchestrator's API instead of the
 * state root; on a cluster node the lines and the table name each row's node, and the nodes that did not answer are
 * said on stderr.
 */
import { afterEach, describe, expect, it } from "bun:test";
import { main } from "../../src/cli/main.ts";
import { capture, cleanUpOperatorFixtures, fakeApi } from "./support/operator-fixture.ts";

afterEach(cleanUpOperatorFixtures);

const at = (second: number) => `2026-11-25T10:00:0${second}.000Z`;

describe("goondan logs --port", () => {
  it("prints a cluster node's events with their node, passes the filters, and names the nodes that did not answer", async () => {
    const asked: URL[] = [];
    const port = fakeApi((request) => {
      asked.push(new URL(request.url));
      return Response.json({
        events: [
          { at: at(1), node: "n2", agent: "worker", instanceKey: "w-1", type: "turn.started", turnId: "turn_1" },
          { at: at(2), node: "n1", agent: "worker", instanceKey: "w-1", type: "turn.completed", turnId: "turn_1" },
        ],
        cursor: "n1:4,n2:9",
        unanswered: [{ node: "n3", status: "timeout" }],
      });
    });
    const { io, out } = capture();
    expect(await main(["logs", "--port", port, "--agent", "worker", "--instance", "w-1", "--turn", "turn_1"], io)).toBe(
      0,
    );
    expect(out.stdout).toBe(
      `${at(1)} n2 worker/w-1 turn.started turn=turn_1\n${at(2)} n1 worker/w-1 turn.completed turn=turn_1\n`,
    );
    expect(out.stderr).toContain("n3 (timeout) did not answer");
    expect(asked[0]?.pathname).toBe("/v1/runtime-events");
    expect(Object.fromEntries(asked[0]?.searchParams ?? [])).toEqual({
      agent: "worker",
      instanceKey: "w-1",
      turnId: "turn_1",
      after: "0",
    });
  });

  it("reads on from the cursor while the API says more events wait, printing each once", async () => {
    const pages = [
      {
        events: [{ at: at(1), node: "n1", agent: "w", instanceKey: "k", type: "turn.started" }],
        cursor: "n1:1,n2:0",
        more: true,
        unanswered: [],
      },
      {
        events: [{ at: at(2), node: "n2", agent: "w", instanceKey: "k", type: "turn.started" }],
        cursor: "n1:1,n2:1",
        unanswered: [],
      },
    ];
    const afters: string[] = [];
    const port = fakeApi((request) => {
      afters.push(new URL(request.url).searchParams.get("after") ?? "");
      return Response.json(pages[afters.length - 1] ?? { events: [], cursor: "n1:1,n2:1", unanswered: [] });
    });
    const { io, out } = capture();
    expect(await main(["logs", "--port", port], io)).toBe(0);
    expect(afters).toEqual(["0", "n1:1,n2:0"]);
    expect(out.stdout).toBe(`${at(1)} n1 w/k turn.started\n${at(2)} n2 w/k turn.started\n`);
  });

  it("says the API's error and fails when the API refuses", async () => {
    const port = fakeApi(() =>
      Response.json({ error: { code: "E_API_BAD_REQUEST", message: "bad after" } }, { status: 400 }),
    );
    const { io, out } = capture();
    expect(await main(["logs", "--port", port], io)).not.toBe(0);
    expect(out.stderr).toContain("E_API_BAD_REQUEST");
  });
});

describe("goondan instance list --port", () => {
  it("prints a cluster node's instance table with a NODE column", async () => {
    const port = fakeApi(() =>
      Response.json({
        instances: [
          {
            node: "n2",
            agent: "worker",
            instanceKey: "w-1",
            status: "idle",
            queued: 0,
            messages: 4,
            updatedAt: Date.parse(at(3)),
          },
          { node: "n1", agent: "coordinator", instanceKey: "c-1", status: "terminated", queued: 0 },
        ],
        unanswered: [],
      }),
    );
    const { io, out } = capture();
    expect(await main(["instance", "list", "--port", port], io)).toBe(0);
    const lines = out.stdout.trim().split("\n");
    expect(lines[0]?.split(/\s+/)).toEqual(["NODE", "AGENT", "INSTANCE", "STATUS", "MESSAGES", "UPDATED"]);
    expect(lines[1]?.split(/\s+/)).toEqual(["n2", "worker", "w-1", "idle", "4", at(3)]);
    expect(lines[2]?.split(/\s+/)).toEqual(["n1", "coordinator", "c-1", "terminated", "0", "-"]);
    expect(out.stderr).toBe("");
  });

  it("prints one host's table without a NODE column", async () => {
    const port = fakeApi(() =>
      Response.json({ instances: [{ agent: "worker", instanceKey: "w-1", status: "idle", queued: 0 }] }),
    );
    const { io, out } = capture();
    expect(await main(["instance", "list", "--port", port], io)).toBe(0);
    expect(out.stdout.split("\n")[0]?.split(/\s+/)[0]).toBe("AGENT");
  });
});
