/**
 * What the studio's browser tests share: a real `goondan run` (behind an API token) on a loopback model that streams,
 * with a coordinator that delegates to a worker (who sleeps 300 ms in slow__sleep) and a `guarded` agent whose
 * effects__append waits for a person's approval; Debian's chromium through playwright-core with a fresh profile;
 * and, per view, an axe-core check (the serious and critical violations) and screenshots at 1440x900 and 390x844
 * under test-artifacts/. Without chromium the tests skip with the reason, and fail under CI=true.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { lastRole, roleOf } from "../fixtures/orchestrator/real-swarm.ts";
import { type Defer } from "../helpers/cleanups.ts";
import { lastUserText, messageText, systemPrompt, type LoopbackRequest } from "../helpers/loopback-llm.ts";
import { realSwarm, startSwarmRun } from "../http/run-fixture.ts";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url).pathname;
export const chromiumMissing = !existsSync(CHROMIUM);
if (chromiumMissing && process.env.CI === "true")
  throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does`);
if (chromiumMissing)
  console.warn(`skipping the studio browser tests: ${CHROMIUM} is missing (apt-get install -y chromium)`);

export const TOKEN = "studio-secret-token";
/** The coordinator's final answer: markdown, with HTML the page must not run. */
export const FINAL =
  'The worker counted **3 pages**. <img src=x onerror="window.hacked=1"><script>window.hacked=2</script>';

/** Where slow__sleep writes its markers (the swarm's temp dir, removed after the test). */
let markers = tmpdir();

function respond(request: LoopbackRequest) {
  const role = roleOf(request);
  if (systemPrompt(request).includes("ROLE=guarded"))
    return lastRole(request) === "user"
      ? { toolCalls: [{ name: "effects__append", args: { id: lastUserText(request) } }] }
      : { text: `tool said: ${messageText(request.body.messages.at(-1))}`, textPieces: 3, chunkDelayMs: 100 };
  if (role === "worker")
    return lastRole(request) === "tool"
      ? { text: "3 pages", usage: { promptTokens: 7, completionTokens: 3 } }
      : { toolCalls: [{ name: "slow__sleep", args: { ms: 300, marker: join(markers, `sleep-${Date.now()}`) } }] };
  return lastRole(request) === "tool"
    ? { text: FINAL, textPieces: 5, chunkDelayMs: 200 }
    : { toolCalls: [{ name: "agents__request", args: { target: "worker", input: "count the pages" } }] };
}

/** The swarm: the orchestrator fixture's coordinator and worker, and a guarded agent on the approvals fixture's tool. */
export async function startStudioSwarm(defer: Defer) {
  const swarm = await realSwarm({ defer, streaming: true, llm: { respond } });
  markers = swarm.dir;
  cpSync(
    new URL("../fixtures/approvals/tools/effects.ts", import.meta.url).pathname,
    join(swarm.dir, "tools", "effects.ts"),
  );
  const effects = join(swarm.dir, "effects.txt");
  const file = join(swarm.dir, "goondan.yaml");
  const guarded = `---
apiVersion: goondan.ai/v1
kind: Tool
metadata: { name: effects }
spec:
  entry: ./tools/effects.ts
  config: { file: ${JSON.stringify(effects)} }
  exports:
    - name: append
      description: Append the id to a file (a side effect a person must allow).
      parameters: { type: object, properties: { id: { type: string } }, required: [id] }
---
apiVersion: goondan.ai/v1
kind: Agent
metadata: { name: guarded }
spec:
  description: Changes things only with a person's approval.
  modelConfig: { modelRef: Model/loopback }
  prompt: { system: "ROLE=guarded" }
  tools: [Tool/effects]
  extensions:
    - ref: { kind: Extension, name: tool-approval, package: "@goondan/base" }
      config: { tools: ["effects__*"] }
`;
  const yaml = readFileSync(file, "utf8").replace(
    "agents: [Agent/coordinator, Agent/worker]",
    "agents: [Agent/coordinator, Agent/worker, Agent/guarded]",
  );
  writeFileSync(
    file,
    yaml.replace(
      /---\napiVersion: goondan.ai\/v1\nkind: Swarm/,
      `${guarded}---\napiVersion: goondan.ai/v1\nkind: Swarm`,
    ),
  );
  const run = await startSwarmRun(swarm, { defer, env: { GOONDAN_API_TOKEN: TOKEN } });
  return { ...swarm, ...run };
}

/** A fresh chromium profile; the page collects errors the page itself made (not the loads it handles). */
export async function openBrowser(defer: Defer) {
  const { chromium } = await import("playwright-core");
  const profile = mkdtempSync(join(tmpdir(), "goondan-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 900 },
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
    // 401 before the token is given is logged by chromium as a failed load; the page handles it.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      problems.push(message.text());
  });
  return { page, problems };
}

/** The serious and critical axe-core violations of what the page shows now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page } as never).analyze();
  return result.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

/** Screenshots of the view at 1440x900 and 390x844 (test-artifacts/studio-<name>-<width>.png); back to 1440 after. */
export async function screenshots(page: Page, name: string, ready: () => Promise<unknown>): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    await ready();
    await page.screenshot({ path: join(ARTIFACTS, `studio-${name}-${width}.png`) });
  }
}

/**
 * Records every text the element at `selector` shows while the thread changes (a reply as it streams); the function
 * returned reads them. (Page code as a string: the test's TypeScript has no DOM types.)
 */
export async function recordTexts(page: Page, selector: string): Promise<() => Promise<string[]>> {
  const name = `texts${Math.random().toString(36).slice(2)}`;
  await page.evaluate(`(() => {
    window.${name} = [];
    new MutationObserver(() => {
      const shown = document.querySelector(${JSON.stringify(selector)});
      if (shown) window.${name}.push(shown.textContent);
    }).observe(document.getElementById("thread-messages"), { childList: true, characterData: true, subtree: true });
  })()`);
  return async () => (await page.evaluate(`window.${name}`)) as string[];
}
