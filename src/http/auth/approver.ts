/**
 * The one check every decision of a held or suspended call goes through (`POST /v1/approvals/:id`, AG-UI's resume,
 * A2A's follow-up and cancel): the request's credential must hold `approve`, and the approver recorded is that
 * credential's name. A body `approver` is at most a confirmation: one that names anyone else is refused, so no
 * caller can claim to be someone the approval's `approvers` lists. Without credentials (`GOONDAN_API_AUTH=off`)
 * the declared approver is recorded as before, unchecked.
 */
import { requestPrincipal } from "./request-principal.ts";
import { grants } from "./scopes.ts";

export type ApproverCheck = { ok: true; approver?: string } | { ok: false; status: 403; code: string; message: string };

export function checkApprover(declared: string | undefined): ApproverCheck {
  const principal = requestPrincipal();
  if (principal === undefined) return { ok: true, ...(declared === undefined ? {} : { approver: declared }) };
  if (!grants(principal.scopes, "approve"))
    return {
      ok: false,
      status: 403,
      code: "E_API_SCOPE_REQUIRED",
      message: `credential ${principal.name} (scopes ${principal.scopes.join(", ")}) may not decide approvals: that needs the approve scope`,
    };
  if (declared !== undefined && declared !== principal.name)
    return {
      ok: false,
      status: 403,
      code: "E_APPROVAL_APPROVER_MISMATCH",
      message: `approver ${JSON.stringify(declared)} is not the credential deciding (${principal.name}); the approver is always the credential's name`,
    };
  return { ok: true, approver: principal.name };
}
