/**
 * The studio in a real browser (Debian's chromium driven by playwright-core) against a real `goondan run` with a
 * token and the loopback model (coordinator delegates to worker): a person opens the page, gives the token it asks
 * for, sends a message, sees the reply come in, sees both agents' processes and the delegation on the graph, opens
 * the turn's trace and finds the worker's turn inside the coordinator's; a screenshot is saved under
 * test-artifacts/. Without chromium it skips with the reason, and fails under CI=true.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv, lastRole, roleOf } from "../fixtures/orchestrator/real-swarm.ts";
import { useCleanups, killChild } from "../helpers/cleanups.ts";
import { startGoondanRun } from "../helpers/goondan-process.ts";
import { realSwarm } from "../http/run-fixture.ts";

const defer = useCleanups();
const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url).pathname;
const missing = !existsSync(CHROMIUM);
if (missing && process.env.CI === "true")
  throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does`);
if (missing) console.warn(`skipping the studio browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`);

const delegate = { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "count the pages" } }] };

describe.skipIf(missing)("the studio in chromium", () => {
  it("asks for the token, sends a message, shows the reply, both agents' processes, and the worker's turn inside the trace", async () => {
    const token = "studio-secret";
    const swarm = await realSwarm({
      defer,
      llm: {
        respond: (request) => {
          if (roleOf(request) === "worker") return { text: "3 pages", usage: { promptTokens: 7, completionTokens: 3 } };
          // The final answer is written slowly, in pieces, so the page shows it growing.
          return lastRole(request) === "tool"
            ? { text: "the worker counted 3 pages", textPieces: 4, chunkDelayMs: 250 }
            : delegate;
        },
      },
    });
    // A streaming model, so the reply's text can reach the page as it is written.
    const bundleFile = join(swarm.dir, "goondan.yaml");
    writeFileSync(
      bundleFile,
      readFileSync(bundleFile, "utf8").replace(
        "  model: loopback-model\n",
        "  model: loopback-model\n  options: { stream: true }\n",
      ),
    );
    const run = await startGoondanRun({
      args: [swarm.dir, "--port", "0", "--state-root", swarm.stateRoot],
      env: { ...childEnv, GOONDAN_LOG_LEVEL: "info", GOONDAN_API_TOKEN: token },
      onSpawn: (proc) => defer(killChild(proc)),
    });
    // Whether this daemon streams replies (POST /v1/events "stream": true, with GET /v1/watch): without it the
    // page asks with "wait": true and the reply arrives whole.
    const watch = await fetch(`${run.base}/v1/watch`, { headers: { authorization: `Bearer ${token}` } });
    const streams = watch.status === 200;
    await watch.body?.cancel();
    const { chromium } = await import("playwright-core");
    const profile = mkdtempSync(join(tmpdir(), "goondan-chromium-"));
    // A fresh profile (playwright passes it as --user-data-dir).
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    defer(async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    });
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      // Answers the page handles are logged by chromium as failed loads: 401 before the token, 404 for routes this
      // daemon lacks (approvals, watch), 501 for streaming before it is served.
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
        problems.push(message.text());
    });
    await page.goto(run.base);
    // Token-protected: the page asks for it.
    await page.locator("#token-form").waitFor({ state: "visible", timeout: 10_000 });
    await page.fill("#token-input", token);
    await page.click("#token-form button");
    await page.locator("#token-form").waitFor({ state: "hidden", timeout: 10_000 });

    // Every text the reply box shows, in order.
    // (Page code as a string: the test's TypeScript has no DOM types.)
    await page.evaluate(`(() => {
      const reply = document.getElementById("reply");
      window.replyTexts = [];
      new MutationObserver(() => window.replyTexts.push(reply.textContent)).observe(reply, { childList: true, characterData: true, subtree: true });
    })()`);
    await page.fill("#send-input", "how many pages?");
    await page.click("#send-button");
    await page.locator("#reply", { hasText: "the worker counted 3 pages" }).waitFor({ timeout: 20_000 });
    await page.locator("#reply-status", { hasText: "done: ok" }).waitFor({ timeout: 10_000 });
    const texts = (await page.evaluate("window.replyTexts")) as string[];
    const partial = texts.filter(
      (text) => text !== "" && text !== "the worker counted 3 pages" && "the worker counted 3 pages".startsWith(text),
    );
    if (streams) {
      expect(partial.length).toBeGreaterThanOrEqual(2);
      // The delegation's tool call, as the stream reported it.
      expect(
        await page.locator('#reply-tools li[data-agent="coordinator"]', { hasText: "agents__request" }).count(),
      ).toBeGreaterThanOrEqual(1);
    } else
      console.warn("this daemon does not stream replies yet (no GET /v1/watch): the reply was asked with wait: true");

    // Both agents' processes in the table.
    await page.locator('#processes tr[data-agent="worker"]').waitFor({ timeout: 10_000 });
    await page.locator('#processes tr[data-agent="coordinator"]').waitFor({ timeout: 10_000 });
    // The delegation on the graph.
    await page
      .locator('#graph line[data-from="coordinator"][data-to="worker"]')
      .waitFor({ state: "attached", timeout: 10_000 });
    expect(await page.locator('#graph g.node[data-agent="worker"]').count()).toBe(1);

    // The trace: the worker's turn inside the coordinator's, with its model call and tokens.
    await page.click("#open-trace");
    const workerTurn = page.locator(
      '#trace .span.turn[data-agent="coordinator"] .span.tool .span.turn[data-agent="worker"]',
    );
    await workerTurn.waitFor({ timeout: 10_000 });
    expect(await workerTurn.locator(".span.model").count()).toBe(1);
    expect(await workerTurn.locator("> .row .tokens").textContent()).toBe("7 in / 3 out");
    expect(await page.locator("#trace .span.turn").count()).toBe(2);
    expect(await page.locator('#trace .span.tool[data-agent="coordinator"] > .row .name').first().textContent()).toBe(
      "tool agents__request",
    );

    // The conversation of the coordinator.
    await page.selectOption("#instance-select", { label: "coordinator/duo" }).catch(() => undefined);
    await page.locator("#conversation li", { hasText: "how many pages?" }).first().waitFor({ timeout: 10_000 });

    // Approvals are served (none pending in this swarm): the panel shows, with nothing to decide.
    await page.locator("#approvals-panel", { hasText: "none pending" }).waitFor({ timeout: 10_000 });

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "studio.png"), fullPage: true });
    expect(problems).toEqual([]);
  }, 90_000);
});
