/**
 * `goondan approve ID [--deny] [--reason R] [--as NAME]`: decides a held tool call in the running orchestrator
 * (`POST /v1/approvals/ID`). Approve (the default) lets the call run and its turn go on; `--deny` answers the model
 * E_TOOL_DENIED with the reason. A decision is applied once: a second one is refused (exit 1, E_APPROVAL_DECIDED).
 * The approver recorded is the credential this command uses (GOONDAN_API_TOKEN, else the state root's api-token):
 * the extension's `approvers` list credentials by name. `--as` only confirms that name: any other is refused
 * (E_APPROVAL_APPROVER_MISMATCH).
 */
import { UsageError } from "../../shared/errors.ts";
import { EXIT, type CliCommand } from "../command.ts";
import { API_FLAGS, apiError, apiTarget, callApi } from "../operator/api-client.ts";

export const command: CliCommand = {
  name: "approve",
  summary: "approve (or --deny) a tool call waiting for a person's decision",
  usage: "goondan approve ID [--deny] [--reason TEXT] [--as NAME] [--port N] [--host HOST]",
  maxPositionals: 1,
  flags: {
    deny: { type: "boolean", description: "deny the call instead: the model reads E_TOOL_DENIED with the reason" },
    reason: { type: "string", description: "why; the model reads it with a denial" },
    as: {
      type: "string",
      description:
        "confirm the deciding credential's name (the approver is always the credential used; another name is refused)",
    },
    ...API_FLAGS,
  },
  async run({ flags, positionals, io }) {
    const id = positionals[0];
    if (id === undefined || id === "")
      throw new UsageError(
        "E_USAGE_MISSING_ARGUMENT",
        "goondan approve expects the approval's id, e.g. goondan approve appr_…; `goondan approvals` lists them",
      );
    const decision = flags.deny === true ? "deny" : "approve";
    const body = {
      decision,
      ...(typeof flags.reason === "string" && flags.reason !== "" ? { reason: flags.reason } : {}),
      ...(typeof flags.as === "string" && flags.as !== "" ? { approver: flags.as } : {}),
    };
    const response = await callApi({
      target: apiTarget({ flags, env: io.env }),
      method: "POST",
      path: `/v1/approvals/${encodeURIComponent(id)}`,
      body,
    });
    if (response.status === 200) {
      io.stdout(`${decision === "approve" ? "approved" : "denied"} ${id}\n`);
      return EXIT.ok;
    }
    const error = apiError(response.body);
    io.stderr(`goondan approve: HTTP ${response.status}${error ? ` ${error.code}: ${error.message}` : ""}\n`);
    return EXIT.failure;
  },
};
