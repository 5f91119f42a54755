/**
 * The studio's Schedules view in a real browser (Debian's chromium through playwright-core) against a real
 * `goondan run` with an `every: 2s` schedule and a turn suspended in `timer__waitForSignal`: the view lists the
 * schedule with its interval, time zone, next fire time and ticks fired (polled, so the count grows), the pending
 * timer with the signal it waits for, and "Run now" fires a tick by hand. The screen passes axe-core with no
 * serious or critical violation, in the light scheme and the dark one, and is screenshot at 1440x900 and 390x844.
 * Without chromium the test skips with the reason (studio-fixture.ts), and fails under CI=true.
 */
import { describe, expect, it } from "bun:test";
import { useCleanups } from "../helpers/cleanups.ts";
import { until } from "../helpers/goondan-process.ts";
import { lastUserText, startLoopbackLlm, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { loopbackBundle, runLoopbackBundle } from "../daemon/loopback-bundle.ts";
import { chromiumMissing, openBrowser, screenshots, seriousViolations } from "./studio-fixture.ts";

const defer = useCleanups();
const wait = { timeout: 30_000 };

function respond(request: LoopbackRequest) {
  if (request.body.messages.at(-1)?.role === "tool") return { text: "woke" };
  const [verb, name] = lastUserText(request).split(" ");
  if (verb === "wait") return { toolCalls: [{ name: "timer__waitForSignal", args: { name, timeoutSeconds: 600 } }] };
  return { text: "noted" };
}

describe.skipIf(chromiumMissing)("the studio's Schedules view in chromium", () => {
  it("lists the schedules with their next fire time and ticks, the pending timers, and runs one now", async () => {
    const llm = await startLoopbackLlm({ respond });
    defer(() => llm.close());
    const dir = loopbackBundle({
      defer,
      llmUrl: llm.url,
      documents: `apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: waiter }
spec:
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "you wait" }
  tools: [{ kind: Tool, name: timer, package: "@goondan/base" }]
---
apiVersion: goondan.ai/v1
kind: Swarm
metadata: { name: clocks }
spec: { entryAgent: Agent/waiter, agents: [Agent/waiter], policy: { shutdown: { gracePeriodSeconds: 2 } } }
---
apiVersion: goondan.ai/v1
kind: Connection
metadata: { name: pulse }
spec:
  connectorRef: { kind: Connector, name: schedule, package: "@goondan/base" }
  swarmRef: Swarm/clocks
  config: { every: 2s, timezone: Asia/Seoul, input: "pulse {{tickAt}}", catchUp: none }
  ingress:
    rules:
      - route: { agentRef: Agent/waiter, instanceKey: pulse }
`,
    });
    const daemon = await runLoopbackBundle({ defer, dir });
    const submitted = await fetch(`${daemon.base}/v1/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "wait deploy-finished", instanceKey: "release" }),
    });
    expect(submitted.status).toBe(202);
    await until(
      async () => {
        const listed = (await (await fetch(`${daemon.base}/v1/schedules`)).json()) as { timers: { signal?: string }[] };
        return listed.timers.some((timer) => timer.signal === "deploy-finished");
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

    const { page, problems } = await openBrowser(defer);
    await page.goto(`${daemon.base}/#/schedules`);
    const row = page.locator('#schedules tr[data-schedule="pulse"]');
    await row.waitFor(wait);
    expect(await row.textContent()).toContain("every 2s");
    expect(await row.textContent()).toContain("Asia/Seoul");
    expect(await row.locator("td[data-next] time").count()).toBe(1);
    // Polled: the ticks fired show up as they fire.
    await until(async () => Number(await row.locator("td[data-fired]").textContent()) >= 2, { timeoutMs: 30_000 });

    const timer = page.locator('#timers tr[data-timer="timer__waitForSignal"]');
    await timer.waitFor(wait);
    expect(await timer.textContent()).toContain("deploy-finished");
    expect(await timer.textContent()).toContain("waiter");

    await page.locator('button[data-run="pulse"]').click();
    await page.locator("#schedule-notice").waitFor(wait);
    expect(await page.locator("#schedule-notice").textContent()).toMatch(/Fired pulse: event run-pulse-\d+/);

    const violations: Record<string, string[]> = { light: await seriousViolations(page) };
    await page.emulateMedia({ colorScheme: "dark" });
    violations.dark = await seriousViolations(page);
    await page.emulateMedia({ colorScheme: "light" });
    await screenshots(page, "schedules", () => row.waitFor());
    expect(violations).toEqual({ light: [], dark: [] });
    expect(problems).toEqual([]);
  }, 180_000);
});
