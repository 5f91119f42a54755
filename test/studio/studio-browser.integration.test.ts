/**
 * The studio in a real browser (Debian's chromium through playwright-core) against a real `goondan run` behind a
 * token, on the loopback model (studio-fixture.ts). A person gives the token the page asks for, sees the swarm drawn
 * from the bundle before any traffic, talks to the coordinator in a thread (the reply streams in as sanitised
 * markdown, the delegation is an inline tool call with its args and result, the input clears and keeps the focus),
 * approves a held call inline and sees the resumed reply stream into the same thread, opens the turn's trace (each
 * bar as wide as its span's duration on one axis, within 2 px; the worker's turn nested under the coordinator's tool
 * call) and, by keyboard alone (arrow keys, Enter, Tab), a tool span's args and result; tabs through the page's
 * stops, each with a visible focus ring; filters the live process table; and sees each agent's nodes marked on the
 * graph when the processes carry cluster nodes. Each view passes axe-core with no serious or critical violation, in
 * the light scheme and the dark one, and is screenshot at 1440x900 and 390x844.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import {
  recordTexts,
  chromiumMissing,
  FINAL,
  openBrowser,
  screenshots,
  seriousViolations,
  startStudioSwarm,
  TOKEN,
} from "./studio-fixture.ts";

const defer = useCleanups();
const wait = { timeout: 20_000 };

describe.skipIf(chromiumMissing)("the studio in chromium", () => {
  it("draws the swarm, streams a thread with tool calls, decides an approval inline, and shows a true waterfall", async () => {
    const run = await startStudioSwarm(defer);
    const { page, problems } = await openBrowser(defer);
    const violations: Record<string, string[]> = {};

    // The token, asked for once.
    await page.goto(`${run.base}/#/agents`);
    await page.locator("#token-form").waitFor(wait);
    await page.fill("#token-input", TOKEN);
    await page.press("#token-input", "Enter");

    // Agents: the bundle's graph before any traffic.
    for (const agent of ["coordinator", "worker", "guarded"])
      await page.locator(`#graph g.node[data-agent="${agent}"]`).waitFor(wait);
    expect(await page.locator('#graph g.node.entry[data-agent="coordinator"]').count()).toBe(1);
    expect(await page.locator('#graph g.edge.call[data-from="coordinator"][data-to="worker"]').count()).toBe(1);
    expect(await page.locator('#graph g.node[data-agent="worker"] text', { hasText: "slow__sleep" }).count()).toBe(1);
    expect(await page.locator("#graph g.edge.used").count()).toBe(0);
    violations.agents = await seriousViolations(page);
    await screenshots(page, "agents", () => page.locator("#graph").waitFor());

    // Threads: a streamed reply with the delegation inline.
    await page.click('nav a[data-view="threads"]');
    await page.locator('.thread[data-agent="coordinator"]').waitFor(wait);
    const replyTexts = await recordTexts(page, ".message.live .markdown");
    await page.fill("#composer-input", "how many pages?");
    await page.press("#composer-input", "Enter");
    expect(await page.inputValue("#composer-input")).toBe("");
    expect(await page.evaluate("document.activeElement.id")).toBe("composer-input");
    await page.locator('.message.live details.tool-call[data-tool="agents__request"]').waitFor(wait);
    const reply = page.locator(".message.assistant .markdown", { hasText: "The worker counted 3 pages." }).last();
    await reply.waitFor(wait);
    await page.locator(".message.assistant a.trace-link").last().waitFor(wait);
    const partial = (await replyTexts()).filter(
      (text) => text.length > 0 && text.length < "The worker counted 3 pages.".length,
    );
    expect(partial.length).toBeGreaterThanOrEqual(1);
    // Markdown rendered, its HTML made harmless.
    expect(await reply.locator("strong").textContent()).toBe("3 pages");
    expect(await page.locator("#thread-messages script, #thread-messages [onerror]").count()).toBe(0);
    expect(await page.evaluate("window.hacked ?? null")).toBeNull();
    expect(FINAL).toContain("onerror");
    const call = page.locator('details.tool-call[data-tool="agents__request"]').last();
    await call.locator("summary").click();
    expect(await call.locator("pre.args").textContent()).toContain('"target": "worker"');
    expect(await call.locator("pre.result").textContent()).toContain("3 pages");
    expect(await call.locator(".duration").textContent()).toMatch(/\d+(\.\d)? m?s/);
    violations.threads = await seriousViolations(page);
    await screenshots(page, "threads", () => reply.waitFor());

    // An approval decided inline; the resumed reply lands in the same thread.
    await page.goto(`${run.base}/#/threads/guarded/g1`);
    await page.locator('.thread[data-agent="guarded"][data-instance="g1"]').waitFor(wait);
    await page.fill("#composer-input", "item-7");
    await page.click("#composer-send");
    const approval = page.locator("li.approval");
    await approval.waitFor(wait);
    expect(await approval.locator("pre.args").textContent()).toContain("item-7");
    violations.approval = await seriousViolations(page);
    await screenshots(page, "approval", () => approval.waitFor());
    const resumedTexts = await recordTexts(page, '.thread[data-instance="g1"] .message.live .markdown');
    await approval.locator("button.approve").click();
    await approval.waitFor({ state: "detached", ...wait });
    // The resumed reply streams into this thread, then stays in it once stored.
    await page.locator('.thread[data-instance="g1"] .message.live').waitFor(wait);
    await page.locator('.thread[data-instance="g1"] .message.live').waitFor({ state: "detached", ...wait });
    await page
      .locator('.thread[data-instance="g1"] .message.assistant .markdown', { hasText: "tool said:" })
      .waitFor(wait);
    const resumed = await resumedTexts();
    const whole = resumed.at(-1) ?? "";
    expect(whole).toContain("tool said:");
    expect(resumed.filter((text) => text.length > 0 && text.length < whole.length).length).toBeGreaterThanOrEqual(1);
    expect(page.url()).toEndWith("#/threads/guarded/g1");
    expect(
      await page
        .locator('.thread[data-instance="g1"] details.tool-call[data-tool="effects__append"] .status')
        .first()
        .textContent(),
    ).toBe("ok");

    // Traces: the coordinator's turn, from its message.
    // Another thread's messages never show under this one's name, not even while it loads.
    await page.goto(`${run.base}/#/threads/coordinator/duo`);
    const duo = page.locator('.thread[data-agent="coordinator"][data-instance="duo"]');
    await duo.waitFor(wait);
    expect(await duo.locator(".message", { hasText: "tool said:" }).count()).toBe(0);
    await duo.locator(".message.assistant a.trace-link").last().click();
    const waterfall = page.locator("#waterfall");
    await waterfall.waitFor(wait);
    const rows = await page.$$eval("#waterfall .wf-row", (elements: any[]) =>
      elements.map((row) => ({
        kind: row.dataset.kind,
        agent: row.dataset.agent,
        level: Number(row.getAttribute("aria-level")),
        durationMs: Number(row.dataset.durationMs),
        bar: row.querySelector(".bar").getBoundingClientRect().width,
        track: row.querySelector(".wf-track").getBoundingClientRect().width,
      })),
    );
    const total = Number(await waterfall.getAttribute("data-total-ms"));
    expect(rows.length).toBeGreaterThanOrEqual(8);
    for (const row of rows) expect(Math.abs(row.bar - (row.durationMs / total) * row.track)).toBeLessThanOrEqual(2);
    const coordinatorTurn = rows.find((row) => row.kind === "turn" && row.agent === "coordinator")!;
    const workerTurn = rows.find((row) => row.kind === "turn" && row.agent === "worker")!;
    expect(workerTurn.level).toBeGreaterThan(coordinatorTurn.level + 1);
    // The 300 ms sleep is a bar of its length, shorter than the worker's turn around it.
    const sleep = rows.find((row) => row.kind === "tool" && row.agent === "worker")!;
    expect(sleep.durationMs).toBeGreaterThanOrEqual(300);
    expect(sleep.bar).toBeLessThan(workerTurn.bar);
    // By keyboard: the spans are one tab stop; the arrows walk the tree, Enter opens a span, Tab reaches its detail.
    expect(await page.locator('#waterfall .wf-row[tabindex="0"]').count()).toBe(1);
    await page.locator('#waterfall .wf-row[tabindex="0"]').focus();
    const focusedRow = () =>
      page.evaluate("[document.activeElement.dataset.kind, document.activeElement.dataset.agent].join(' ')");
    const focusedLevel = async () => Number(await page.evaluate("document.activeElement.getAttribute('aria-level')"));
    const downTo = async (wanted: string) => {
      for (let step = 0; step < rows.length && (await focusedRow()) !== wanted; step++)
        await page.keyboard.press("ArrowDown");
      expect(await focusedRow()).toBe(wanted);
    };
    await downTo("tool worker");
    const toolLevel = await focusedLevel();
    await page.keyboard.press("ArrowLeft");
    expect(await focusedLevel()).toBe(toolLevel - 1);
    await downTo("tool worker");
    await page.keyboard.press("Enter");
    const detail = page.locator('#span-detail[data-kind="tool"]');
    await detail.waitFor(wait);
    expect(await focusedRow()).toBe("tool worker");
    expect(await page.evaluate("document.activeElement.getAttribute('aria-selected')")).toBe("true");
    expect(await page.evaluate("document.activeElement.tabIndex")).toBe(0);
    expect(await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")).not.toBe("none");
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement.id")).toBe("span-detail");
    expect(await detail.locator('pre[data-field="inputs.args"]').textContent()).toContain('"ms": 300');
    expect(await detail.locator('pre[data-field="outputs.result"]').textContent()).toContain('"slept": 300');
    violations.traces = await seriousViolations(page);
    await screenshots(page, "traces", () => detail.waitFor());

    // Processes: live, with a filter.
    await page.click('nav a[data-view="processes"]');
    await page.locator('#processes tr[data-agent="worker"]').waitFor(wait);
    await page.locator('#processes tr[data-agent="coordinator"]').waitFor(wait);
    await page.fill("#process-filter", "worker");
    await page.locator('#processes tr[data-agent="coordinator"]').waitFor({ state: "detached", ...wait });
    expect(await page.locator('#processes tbody tr[data-agent="worker"]').count()).toBe(1);
    await page.fill("#process-filter", "");
    // Without a mouse: from the top of the page, Tab reaches the skip link, the five views and the filter, in that
    // order, each with a visible focus ring.
    await page.reload();
    await page.locator('#processes tr[data-agent="worker"]').waitFor(wait);
    const stops: Array<{ stop: string; ring: string }> = [];
    for (let step = 0; step < 30 && stops.at(-1)?.stop !== "input#process-filter"; step++) {
      await page.keyboard.press("Tab");
      stops.push(
        await page.evaluate(`(() => {
          const e = document.activeElement;
          const name = e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.dataset.view ? "." + e.dataset.view : "");
          return { stop: name, ring: getComputedStyle(e).outlineStyle };
        })()`),
      );
    }
    expect(stops.map((item) => item.stop)).toEqual([
      "a",
      "a.agents",
      "a.threads",
      "a.traces",
      "a.processes",
      "a.schedules",
      "a.evals",
      "input#process-filter",
    ]);
    expect(stops.filter((item) => item.ring === "none")).toEqual([]);
    violations.processes = await seriousViolations(page);
    await screenshots(page, "processes", () => page.locator("#processes").waitFor());

    // The agents graph after traffic: the delegation lit and counted.
    await page.click('nav a[data-view="agents"]');
    const used = page.locator('#graph g.edge.used[data-from="coordinator"][data-to="worker"]');
    await used.waitFor(wait);
    expect(await used.locator(".flow-count").textContent()).toBe("1×");
    expect(await page.locator('#graph g.edge.used[data-from="worker"]').count()).toBe(0);
    // On a cluster, each agent's nodes are marked on it: the rows of /v1/processes are given nodes, as a cluster
    // node's answer carries them.
    await page.route("**/v1/processes", async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as { processes: Array<Record<string, unknown>> };
      for (const row of body.processes) row.node = row.agent === "worker" ? "node-b" : "node-a";
      await route.fulfill({ response: answer, json: body });
    });
    await page.reload();
    await page.locator('#graph g.node[data-agent="worker"] g.cluster-node[data-node="node-b"]').waitFor(wait);
    await page.locator('#graph g.node[data-agent="coordinator"] g.cluster-node[data-node="node-a"]').waitFor(wait);
    expect(await page.locator('#graph g.node[data-agent="worker"] g.cluster-node').count()).toBe(1);
    violations["agents on a cluster"] = await seriousViolations(page);
    await page.unroute("**/v1/processes");

    // The dark scheme, as a system set to dark asks for it, passes too (contrast above all).
    await page.emulateMedia({ colorScheme: "dark" });
    for (const [view, ready] of [
      ["agents", "#graph"],
      ["threads/coordinator/duo", ".message.assistant"],
      ["processes", "#processes"],
    ] as const) {
      await page.goto(`${run.base}/#/${view}`);
      await page.locator(ready).first().waitFor(wait);
      violations[`dark ${view}`] = await seriousViolations(page);
    }
    await screenshots(page, "threads-dark", async () => {
      await page.goto(`${run.base}/#/threads/coordinator/duo`);
      await page.locator(".message.assistant").first().waitFor(wait);
    });

    expect(violations).toEqual({
      agents: [],
      "agents on a cluster": [],
      threads: [],
      approval: [],
      traces: [],
      processes: [],
      "dark agents": [],
      "dark threads/coordinator/duo": [],
      "dark processes": [],
    });
    expect(problems).toEqual([]);
  }, 180_000);
});
