/**
 * `goondan validate` on the built-in `mcp` extension's config, where an Agent uses it: each defect is one
 * coded issue at its path under `spec.extensions[i].config`, and a valid config (stdio and Streamable HTTP,
 * ValueSources in env and headers) loads.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { loadBundle } from "../../src/config/load-bundle.ts";
import { ECHO_MODULE, baseBundle, header, removeBundles, writeBundle } from "./temp-bundle.ts";

afterAll(removeBundles);

const agentWithMcp = (config: string) =>
  `${header("Agent", "a")}spec:\n  modelConfig: { modelRef: Model/m }\n  prompt: { system: hi }\n  extensions:\n    - ref: { kind: Extension, name: mcp, package: "@goondan/base" }\n${config}`;

async function issuesOf(config: string) {
  const dir = writeBundle(baseBundle({ agent: agentWithMcp(config), files: { "tools/echo.ts": ECHO_MODULE } }));
  const result = await loadBundle(dir, { checkModules: false });
  return { valid: result.valid, errors: result.errors.map((issue) => [issue.code, issue.path]) };
}

const AT = "goondan.yaml#2.spec.extensions[0].config";

describe("mcp extension config", () => {
  it("accepts stdio and Streamable HTTP servers with ValueSources, allow-lists and deadlines", async () => {
    const config = `      config:
        servers:
          files: { command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "./docs"], env: { TOKEN: { valueFrom: { env: FILES_TOKEN } } }, cwd: ., tools: [read_file], timeoutMs: 5000, network: host, isolation: required }
          search: { url: "http://127.0.0.1:3001/mcp", headers: { Authorization: { valueFrom: { env: SEARCH_TOKEN } } }, connectTimeoutMs: 2000 }
`;
    expect(await issuesOf(config)).toEqual({ valid: true, errors: [] });
  });

  const cases: [title: string, config: string, errors: [string, string][]][] = [
    ["no config at all", "", [["E_CONFIG_SCHEMA_INVALID", `${AT}.servers`]]],
    ["no servers", "      config: { servers: {} }\n", [["E_CONFIG_SCHEMA_INVALID", `${AT}.servers`]]],
    [
      "an unknown field",
      "      config: { servers: { a: { command: x, comand: y } } }\n",
      [["E_CONFIG_SCHEMA_INVALID", `${AT}.servers.a.comand`]],
    ],
    [
      "a server with neither command nor url",
      "      config: { servers: { a: { args: [x] } } }\n",
      [["E_CONFIG_MCP_TRANSPORT", `${AT}.servers.a`]],
    ],
    [
      "a server with both command and url",
      '      config: { servers: { a: { command: x, url: "http://h/mcp" } } }\n',
      [["E_CONFIG_MCP_TRANSPORT", `${AT}.servers.a`]],
    ],
    [
      "headers on a stdio server",
      "      config: { servers: { a: { command: x, headers: { A: b } } } }\n",
      [["E_CONFIG_MCP_TRANSPORT", `${AT}.servers.a.headers`]],
    ],
    [
      "env on an HTTP server",
      '      config: { servers: { a: { url: "http://h/mcp", env: { A: b } } } }\n',
      [["E_CONFIG_MCP_TRANSPORT", `${AT}.servers.a.env`]],
    ],
    [
      "a network setting on an HTTP server (only a stdio server runs in a sandbox)",
      '      config: { servers: { a: { url: "http://h/mcp", network: host } } }\n',
      [["E_CONFIG_MCP_TRANSPORT", `${AT}.servers.a.network`]],
    ],
    [
      "a network that is neither none nor host",
      "      config: { servers: { a: { command: x, network: lan } } }\n",
      [["E_CONFIG_SCHEMA_INVALID", `${AT}.servers.a.network`]],
    ],
    [
      "a url that is not http(s)",
      '      config: { servers: { a: { url: "ftp://h/mcp" } } }\n',
      [["E_CONFIG_SCHEMA_INVALID", `${AT}.servers.a.url`]],
    ],
    [
      "a header that is neither a string nor a ValueSource",
      '      config: { servers: { a: { url: "http://h/mcp", headers: { A: { env: X } } } } }\n',
      [["E_CONFIG_SCHEMA_INVALID", `${AT}.servers.a.headers.A`]],
    ],
    [
      "a zero timeout",
      "      config: { servers: { a: { command: x, timeoutMs: 0 } } }\n",
      [["E_CONFIG_SCHEMA_INVALID", `${AT}.servers.a.timeoutMs`]],
    ],
    [
      "a server name the model cannot take",
      "      config: { servers: { My__Files: { command: x } } }\n",
      [["E_CONFIG_TOOL_NAME", `${AT}.servers.My__Files`]],
    ],
  ];
  for (const [title, config, errors] of cases) {
    it(`reports ${title}`, async () => {
      expect(await issuesOf(config)).toEqual({ valid: false, errors });
    });
  }
});
