/**
 * The studio's Schedules view without a browser: its tables drawn from a `GET /v1/schedules` answer (Preact's
 * virtual nodes, flattened to text and attributes here; the browser test in schedules-view-browser.integration.test.ts
 * draws the page in chromium), and the studio's script still builds with the view in it.
 */
import { describe, expect, it } from "bun:test";
import { studioFiles } from "../../src/http/studio-bundle.ts";

// The studio's sources are plain JavaScript for the browser (no declarations): loaded by path.
const VIEW = new URL("../../src/http/studio/schedules-view.js", import.meta.url).pathname;
const { ScheduleTable, TimerTable } = (await import(VIEW)) as {
  ScheduleTable: (props: { rows: unknown[]; onRun: (name: string) => void }) => unknown;
  TimerTable: (props: { timers: unknown[] }) => unknown;
};

type Node = { type: unknown; props: Record<string, unknown> } | string | number | null | undefined | Node[];

/** Text of a vnode tree (function components called), and every `data-*` attribute met. */
function flatten(node: Node, found: { text: string[]; data: string[] } = { text: [], data: [] }) {
  if (node === null || node === undefined || typeof node === "boolean") return found;
  if (typeof node === "string" || typeof node === "number") {
    found.text.push(String(node));
    return found;
  }
  if (Array.isArray(node)) {
    for (const child of node) flatten(child, found);
    return found;
  }
  if (typeof node.type === "function") return flatten((node.type as (props: unknown) => Node)(node.props), found);
  for (const [key, value] of Object.entries(node.props))
    if (key.startsWith("data-") && value !== undefined) found.data.push(`${key}=${String(value)}`);
  return flatten(node.props.children as Node, found);
}

describe("the studio's Schedules view", () => {
  it("draws each schedule's interval, next fire time, last result, counts and node, and a Run button", () => {
    const rows = [
      {
        connection: "pulse",
        every: "15m",
        timezone: "UTC",
        catchUp: "last",
        nextAt: "2026-01-02T03:15:00.000Z",
        lastTickAt: "2026-01-02T03:00:00.000Z",
        lastResult: "ok",
        fired: 4,
        caughtUp: 1,
        missed: 2,
        late: 1,
        node: "n2",
      },
      {
        connection: "digest",
        cron: "0 9 * * 1-5",
        timezone: "Asia/Seoul",
        catchUp: "none",
        fired: 0,
        caughtUp: 0,
        missed: 0,
        late: 0,
      },
    ];
    const drawn = flatten(ScheduleTable({ rows, onRun: () => {} }) as Node);
    const text = drawn.text.join("").replace(/\s+/g, " ");
    expect(drawn.data).toEqual(
      expect.arrayContaining(["data-schedule=pulse", "data-schedule=digest", "data-run=pulse"]),
    );
    for (const shown of ["every 15m", "0 9 * * 1-5", "Asia/Seoul", "catch-up last", "ok", "n2", "this host", "Run now"])
      expect(text).toContain(shown);
  });

  it("draws the pending timers with the signal each waits for, and says when there is none", () => {
    const timers = [
      {
        id: "apr-1",
        agent: "releaser",
        instanceKey: "r1",
        toolName: "timer__waitForSignal",
        until: "2026-01-02T04:00:00.000Z",
        signal: "deploy-finished",
      },
      {
        eventId: "evt-9",
        agent: "writer",
        instanceKey: "w",
        toolName: "agents__schedule",
        until: "2026-01-03T00:00:00.000Z",
      },
    ];
    const drawn = flatten(TimerTable({ timers }) as Node);
    expect(drawn.data).toEqual(["data-timer=timer__waitForSignal", "data-timer=agents__schedule"]);
    expect(drawn.text.join(" ")).toContain("deploy-finished");
    expect(flatten(TimerTable({ timers: [] }) as Node).text.join(" ")).toContain("No turn waits");
  });

  it("is part of the studio's script as it builds", async () => {
    const script = (await studioFiles()).get("app.js")?.body ?? "";
    expect(script).toContain("Pending timers");
  }, 60_000);
});
