/**
 * `goondan validate` on Connections of the built-in `schedule` connector: each bad setting (an invalid cron, an
 * unknown time zone, a negative or absurd duration, a template naming a field a tick lacks, an unknown setting) is
 * one coded issue at its `spec.config` key, with its line and, where a name is close, "did you mean".
 */
import { afterAll, describe, expect, it } from "bun:test";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { baseBundle, header, removeBundles, writeBundle } from "./temp-bundle.ts";

afterAll(removeBundles);

const connection = (config: string) =>
  `${header("Connection", "digest")}spec:\n  connectorRef: { kind: Connector, name: schedule, package: "@goondan/base" }\n  swarmRef: Swarm/s\n  config:\n${config}`;

async function issuesOf(config: string) {
  const dir = writeBundle(baseBundle({ extra: [connection(config)] }));
  const result = await loadBundle(dir, { checkModules: false });
  return result.errors.map((issue) => ({
    code: issue.code,
    path: issue.path,
    line: issue.line,
    suggestion: issue.suggestion,
  }));
}

const AT = "goondan.yaml#4.spec.config";
// The Connection is document 4; its config's first key is on line 48 of the file.
const FIRST_LINE = 48;

describe("schedule Connection config", () => {
  it("accepts a cron with a time zone, an interval, templates of known fields and each catch-up", async () => {
    expect(
      await issuesOf(
        '    cron: "0 9 * * 1-5"\n    timezone: Asia/Seoul\n    input: "digest for {{date}} {{ time }} ({{timezone}})"\n    catchUp: all\n    catchUpMax: 5\n',
      ),
    ).toEqual([]);
    expect(
      await issuesOf('    every: 1h30m\n    catchUp: none\n    input: "tick {{tickAt}} of {{connection}}"\n'),
    ).toEqual([]);
    expect(await issuesOf('    cron: "*/10 * * * * *"\n')).toEqual([]);
  });

  it("names an invalid cron expression at its line", async () => {
    const [issue, ...rest] = await issuesOf('    cron: "61 * * * *"\n');
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ code: "E_CONFIG_CRON_INVALID", path: `${AT}.cron`, line: FIRST_LINE });
  });

  it("refuses a cron of seven fields", async () => {
    expect((await issuesOf('    cron: "0 0 9 * * 1-5 2027"\n')).map((issue) => issue.code)).toEqual([
      "E_CONFIG_CRON_INVALID",
    ]);
  });

  it("names an unknown time zone and the one it was likely meant to be", async () => {
    const [issue] = await issuesOf('    cron: "0 9 * * *"\n    timezone: Asia/Seol\n');
    expect(issue).toMatchObject({
      code: "E_CONFIG_TIMEZONE_UNKNOWN",
      path: `${AT}.timezone`,
      line: FIRST_LINE + 1,
      suggestion: 'did you mean "Asia/Seoul"?',
    });
  });

  it("refuses a negative, a unitless and an absurd duration", async () => {
    for (const every of ["-5m", "300", "400d", "0s"])
      expect((await issuesOf(`    every: ${every}\n`)).map((issue) => [issue.code, issue.path])).toEqual([
        ["E_CONFIG_DURATION_INVALID", `${AT}.every`],
      ]);
  });

  it("names a template field a tick does not have, with did-you-mean", async () => {
    const [issue] = await issuesOf('    every: 1h\n    input: "digest for {{dat}}"\n');
    expect(issue).toMatchObject({
      code: "E_CONFIG_TEMPLATE_FIELD_UNKNOWN",
      path: `${AT}.input`,
      line: FIRST_LINE + 1,
      suggestion: 'did you mean "date"?',
    });
  });

  it("refuses neither or both of cron and every, an unknown catchUp and an unknown setting", async () => {
    expect((await issuesOf("    input: hello\n")).map((issue) => issue.code)).toEqual(["E_CONFIG_SCHEDULE_INVALID"]);
    expect((await issuesOf('    cron: "0 9 * * *"\n    every: 1h\n')).map((issue) => issue.code)).toEqual([
      "E_CONFIG_SCHEDULE_INVALID",
    ]);
    const [catchUp] = await issuesOf("    every: 1h\n    catchUp: lats\n");
    expect(catchUp).toMatchObject({
      path: `${AT}.catchUp`,
      suggestion: expect.stringContaining('did you mean "last"?'),
    });
    const [unknown] = await issuesOf("    every: 1h\n    timeZone: UTC\n");
    expect(unknown).toMatchObject({ path: `${AT}.timeZone`, suggestion: 'did you mean "timezone"?' });
  });
});
