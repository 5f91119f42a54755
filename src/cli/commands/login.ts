/**
 * `goondan login`: prints a one-time link that logs the studio in, as the credential this command uses (its token:
 * GOONDAN_API_TOKEN, else the state root's api-token), through `POST /v1/login-codes`. Opening the link spends it
 * and sets the studio's session cookie (docs/studio.md); `goondan run` prints one at start.
 */
import { EXIT, type CliCommand } from "../command.ts";
import { API_FLAGS, apiError, apiTarget, callApi } from "../operator/api-client.ts";

export const command: CliCommand = {
  name: "login",
  summary: "print a one-time link that logs the studio in as this command's credential",
  usage: "goondan login [--port N] [--host HOST] [--state-root DIR]",
  maxPositionals: 0,
  flags: { ...API_FLAGS },
  async run({ flags, io }) {
    const target = apiTarget({ flags, env: io.env });
    const response = await callApi({ target, method: "POST", path: "/v1/login-codes" });
    const path = (response.body as { path?: unknown } | undefined)?.path;
    if (response.status !== 201 || typeof path !== "string") {
      const error = apiError(response.body);
      io.stderr(`goondan login: HTTP ${response.status}${error ? ` ${error.code}: ${error.message}` : ""}\n`);
      return EXIT.failure;
    }
    const credential = (response.body as { credential?: unknown }).credential;
    io.stdout(`${target.baseUrl}${path}\n`);
    io.stderr(`goondan login: the link logs in once, as ${String(credential)}\n`);
    return EXIT.ok;
  },
};
