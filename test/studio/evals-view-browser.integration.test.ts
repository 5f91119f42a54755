/**
 * The studio's Evals view in a real browser (Debian's chromium through playwright-core) against a real `goondan run`
 * behind a token, on a state root where `goondan eval --replay` of the bundled example kept its run: the view lists
 * the run, the run's two cases with status, score, tokens, cost and duration, and a case opens its thread (the
 * Threads view's message items, with the delegation and the tool calls inline) and its trace (the Traces view's
 * waterfall, a span selectable). Each screen passes axe-core with no serious or critical violation, in the light
 * scheme and the dark one, and is screenshot at 1440x900 and 390x844. A daemon with no run shows how to make one.
 */
import { describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useCleanups } from "../helpers/cleanups.ts";
import { replayExample, runExample } from "../eval/kept-eval-run.ts";
import { chromiumMissing, openBrowser, screenshots, seriousViolations, TOKEN } from "./studio-fixture.ts";

const defer = useCleanups();
const wait = { timeout: 30_000 };

describe.skipIf(chromiumMissing)("the studio's Evals view in chromium", () => {
  it("lists the kept run, its cases, and a case's thread and trace", async () => {
    const replayed = await replayExample(defer);
    expect(replayed.code).toBe(0);
    const run = await runExample(defer, replayed.stateRoot, TOKEN);
    const { page, problems } = await openBrowser(defer);
    const violations: Record<string, string[]> = {};

    await page.goto(`${run.base}/#/evals`);
    await page.locator("#token-form").waitFor(wait);
    await page.fill("#token-input", TOKEN);
    await page.press("#token-input", "Enter");

    // The runs, then the run's cases.
    const runLink = page.locator("a[data-run]");
    await runLink.first().waitFor(wait);
    expect(await runLink.count()).toBe(1);
    expect(await runLink.textContent()).toContain("2/2 passed");
    violations.runs = await seriousViolations(page);
    await runLink.click();
    const rows = page.locator("#eval-cases tbody tr");
    await rows.first().waitFor(wait);
    expect(await rows.count()).toBe(2);
    const poemRow = page.locator('#eval-cases tr[data-case="example/writes-a-poem"]');
    expect(await poemRow.locator(".status").textContent()).toBe("pass");
    expect(await poemRow.locator(".tokens").textContent()).toMatch(/\d+ in \/ \d+ out/);
    violations.run = await seriousViolations(page);
    await screenshots(page, "evals-run", () => rows.first().waitFor());

    // A case: its checks, its thread with the calls inline, its trace.
    await poemRow.locator("a").click();
    await page.locator('#eval-case[data-case="example/writes-a-poem"]').waitFor(wait);
    expect(await page.locator("#eval-case .checks li.pass").count()).toBeGreaterThanOrEqual(3);
    const thread = page.locator('#eval-thread .thread[data-agent="coordinator"]');
    await thread.locator(".message.user").first().waitFor(wait);
    expect(await thread.locator(".message.user .plain").first().textContent()).toContain("three-line poem");
    const delegation = thread.locator('details.tool-call[data-tool="agents__request"]');
    await delegation.locator("summary").click();
    expect(await delegation.locator("pre.args").textContent()).toContain('"target": "worker"');
    expect(
      await page.locator('#eval-thread .thread[data-agent="worker"] details.tool-call[data-tool="bash__exec"]').count(),
    ).toBe(1);
    expect(await page.locator("#eval-thread a.trace-link").count()).toBe(0);
    const turnRows = page.locator('#eval-trace #waterfall .wf-row[data-kind="turn"]');
    await turnRows.first().waitFor(wait);
    expect(await turnRows.count()).toBeGreaterThanOrEqual(2);
    const toolRow = page.locator('#eval-trace .wf-row[data-kind="tool"]').first();
    await toolRow.click();
    expect(await toolRow.getAttribute("aria-selected")).toBe("true");
    violations.case = await seriousViolations(page);
    await screenshots(page, "evals-case", () => page.locator("#eval-trace #waterfall").waitFor());

    // The dark scheme passes too.
    await page.emulateMedia({ colorScheme: "dark" });
    violations["dark case"] = await seriousViolations(page);
    await page.emulateMedia({ colorScheme: "light" });

    // A daemon that keeps no run says how to make one.
    const empty = mkdtempSync(join(tmpdir(), "goondan-no-evals-"));
    defer(() => rmSync(empty, { recursive: true, force: true }));
    const bare = await runExample(defer, empty, TOKEN);
    await page.goto(`${bare.base}/#/evals`);
    await page.locator("#token-form").waitFor(wait);
    await page.fill("#token-input", TOKEN);
    await page.press("#token-input", "Enter");
    await page.locator("#evals-empty").waitFor(wait);
    expect(await page.locator("#evals-empty pre").textContent()).toBe("goondan eval --replay");
    violations.empty = await seriousViolations(page);

    expect(violations).toEqual({ runs: [], run: [], case: [], "dark case": [], empty: [] });
    expect(problems).toEqual([]);
  }, 240_000);
});
