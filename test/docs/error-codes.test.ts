/**
 * docs/error-codes.md against the source: every error code a source file emits has a row in one of the
 * page's code tables (`| Code | From | Meaning | What to do |`), and every code in those tables is emitted
 * by some source file. A code is a quoted SCREAMING_SNAKE string literal in src/; NOT_ERROR_CODES names
 * the few such literals that are env vars or config keys, not codes.
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ISSUE_CODES } from "../../src/config/issue-codes.ts";

const ROOT = join(import.meta.dir, "../..");
const PAGE = join(ROOT, "docs/error-codes.md");

/** Quoted upper-case names in src/ that are not error codes: env vars the processes read or pass on, and config keys. */
const NOT_ERROR_CODES = new Set([
  // The google.rpc status names A2A's REST binding answers with (the protocol's, beside goondan's own code).
  "INVALID_ARGUMENT",
  "NOT_FOUND",
  "FAILED_PRECONDITION",
  "PERMISSION_DENIED",
  "FORCE_COLOR",
  "NO_COLOR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_DIR",
  "SSL_CERT_FILE",
  "BUN_OPTIONS",
  "LC_ALL",
  "LC_CTYPE",
  "LC_MESSAGES",
  "GOONDAN_BUNDLE_SNAPSHOT",
  "GOONDAN_CLUSTER_SNAPSHOT_RECORDS",
  "GOONDAN_CLUSTER_SNAPSHOT_BYTES",
  "GOONDAN_RECORD_CASSETTE",
  "GOONDAN_TOOL_RUN",
  "GOONDAN_API_ALLOWED_ORIGINS",
  "GOONDAN_API_ALLOWED_HOSTS",
  "GOONDAN_API_TOKEN",
  "GOONDAN_API_RATE_LIMIT_CREDENTIAL",
  "GOONDAN_API_RATE_LIMIT_ADDRESS",
  "GOONDAN_SECRET_API_TOKENS",
  "MAX_BODY_BYTES",
  // The standard OpenTelemetry variables goondan run reads (src/observability/otel-settings.ts).
  "OTEL_SDK_DISABLED",
  "OTEL_TRACES_EXPORTER",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
  "OTEL_BSP_SCHEDULE_DELAY",
  // The channel tools' and connectors' settings: env vars and the public Goondan Connection config keys.
  "GOONDAN_TELEGRAM_API_BASE_URL",
  "GOONDAN_SLACK_API_BASE_URL",
  "GOONDAN_DISCORD_API_BASE_URL",
  "TELEGRAM_API_BASE_URL",
  "TELEGRAM_POLL_TIMEOUT_SECONDS",
  "TELEGRAM_REQUEST_TIMEOUT_MS",
  "TELEGRAM_RETRY_DELAY_MS",
  "TELEGRAM_INITIAL_OFFSET",
  "SLACK_WEBHOOK_PORT",
  "SLACK_WEBHOOK_PATH",
  "SLACK_MESSAGE_MODE",
  "SLACK_SIGNING_SECRET",
  "DISCORD_PUBLIC_KEY",
  "DISCORD_WEBHOOK_PORT",
  "DISCORD_WEBHOOK_PATH",
  "DISCORD_API_BASE_URL",
  "DISCORD_REPLY_WITH_TURN_RESPONSE",
  "GITHUB_WEBHOOK_PORT",
  "GITHUB_WEBHOOK_PATH",
  "GOONDAN_CLUSTER_URL",
  "GOONDAN_CLUSTER_CREDS",
  "GOONDAN_NODE",
  // The AI SDK providers' standard variables (src/config/provider-env.ts).
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "GOOGLE_GENERATIVE_AI_BASE_URL",
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** Every code literal in src/, with the files that hold it. */
function emittedCodes(): Map<string, string[]> {
  const codes = new Map<string, string[]>();
  for (const file of sourceFiles(join(ROOT, "src"))) {
    // The public project's spellings of shared codes: the page lists them beside goondan's, not as codes of their own.
    if (file.endsWith("upstream-codes.ts")) continue;
    for (const match of readFileSync(file, "utf8").matchAll(/["']([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)["']/g)) {
      const code = match[1]!;
      if (NOT_ERROR_CODES.has(code)) continue;
      codes.set(code, [...new Set([...(codes.get(code) ?? []), relative(ROOT, file)])]);
    }
  }
  return codes;
}

/** The first-column codes of the page's code tables (not of its table of older spellings). */
function documentedCodes(): string[] {
  const codes: string[] = [];
  let inCodeTable = false;
  for (const line of readFileSync(PAGE, "utf8").split("\n")) {
    if (!line.startsWith("|")) {
      inCodeTable = false;
      continue;
    }
    if (line.startsWith("| Code |")) {
      inCodeTable = true;
      continue;
    }
    const code = /^\| `([A-Z][A-Z0-9_]+)` \|/.exec(line)?.[1];
    if (inCodeTable && code !== undefined) codes.push(code);
  }
  return codes;
}

describe("docs/error-codes.md", () => {
  const emitted = emittedCodes();
  const documented = documentedCodes();

  it("lists every code the source emits", () => {
    const missing = [...emitted.keys()]
      .filter((code) => !documented.includes(code))
      .map((code) => `${code} (${emitted.get(code)!.join(", ")})`);
    expect(missing).toEqual([]);
  });

  it("lists only codes some source file emits", () => {
    expect(documented.filter((code) => !emitted.has(code))).toEqual([]);
  });

  it("lists each code once", () => {
    expect(documented.filter((code, index) => documented.indexOf(code) !== index)).toEqual([]);
  });

  it("lists every config issue code", () => {
    expect(Object.keys(ISSUE_CODES).filter((code) => !documented.includes(code))).toEqual([]);
  });

  it("holds the codes the public Goondan project emits for the same config cases", () => {
    for (const code of [
      "E_CONFIG_PACKAGE_DOC_POSITION",
      "E_CONFIG_PACKAGE_DOC_DUPLICATED",
      "E_CONFIG_UNSUPPORTED_API_VERSION",
      "E_CONFIG_INVALID_REF",
      "E_CONFIG_PARSE_ERROR",
      "E_CONFIG_INVALID_NAME",
      "E_CONFIG_TOO_MANY_DOCUMENTS",
      "W_SWARM_MISSING",
      "E_KIND_MISSING",
      "E_FILE_NOT_FOUND",
    ]) {
      expect(documented).toContain(code);
    }
  });
});
