/**
 * Finding 1 of issue 25, run as the attacker would, against a real `goondan run`: an agent's shell command runs curl
 * against the daemon to list the approvals and approve the call another agent is held on, claiming to be `alice`.
 * Refused with and without a configured token: without one, the daemon made `<state root>/api-token` (0600) that
 * the command has no copy of; with a tokens file, the command has none either. Only a credential that holds the
 * approve scope and that the approval's `approvers` names decides it, and the approver recorded is that credential,
 * also through the studio's login link (whose button sends no approver). A read or operate credential cannot approve.
 * A2A's follow-up decision goes through the same check. The shell cannot read the token file either: the bash
 * sandbox hides the state root, so a stolen-token approve is a 401 too.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { useCleanups } from "../../helpers/cleanups.ts";
import { runToExit, GOONDAN_BIN, until } from "../../helpers/goondan-process.ts";
import { readStateRootToken, stateRootTokenPath } from "../../../src/http/auth/state-root-token.ts";
import { call, selfApprovalScript, send, startAuthWorld } from "./auth-world.ts";

const defer = useCleanups();
const curl = Bun.which("curl");
const onLinux = process.platform === "linux";

const TOKENS = {
  alice: "alice-approves-0123456789",
  bob: "bob-approves-too-0123456789",
  ci: "ci-operates-0123456789",
  reader: "reader-reads-0123456789",
};
const TOKENS_FILE = [
  "credentials:",
  `  - { name: alice, token: ${TOKENS.alice}, scopes: [approve] }`,
  `  - { name: bob, token: ${TOKENS.bob}, scopes: [approve] }`,
  `  - { name: ci, token: ${TOKENS.ci}, scopes: [operate] }`,
  `  - { name: reader, token: ${TOKENS.reader}, scopes: [read] }`,
  "",
].join("\n");

const loginCode = (stderr: string): string | undefined => /\/login\?token=([A-Za-z0-9_-]+)/.exec(stderr)?.[1];

describe.skipIf(curl === null)("an agent's shell cannot approve its own held call", () => {
  it("without a configured token: the daemon makes a 0600 token, and curl without it is refused", async () => {
    const world = await startAuthWorld({ defer });
    const file = stateRootTokenPath(world.stateRoot);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readStateRootToken(world.stateRoot) as string;
    const held = await send(world, token, "worker", "job-1");
    expect(held.status).toBe("awaiting_approval");
    const approvalId = held.approvalIds?.[0] as string;

    world.attack.script = selfApprovalScript(world.port, approvalId);
    const attacked = await send(world, token, "attacker", "attack");
    expect(attacked.status).toBe("ok");
    const output = world.attackOutput();
    expect(output).toContain("LIST 401");
    expect(output).toContain("APPROVE 401");
    expect(output).toContain("ENV 0");
    // Nothing ran, and the call still waits for a person.
    expect(world.effects()).toEqual([]);
    const pending = await call(world, "GET", "/v1/approvals", { token });
    expect(pending.body.approvals.map((row: { id: string }) => row.id)).toEqual([approvalId]);

    // The operator's commands read the same token from the state root.
    const env = { ...process.env, GOONDAN_API_TOKEN: "", GOONDAN_STATE_ROOT: "" };
    const listed = await runToExit({
      argv: [process.execPath, GOONDAN_BIN, "approvals", "--port", String(world.port), "--state-root", world.stateRoot],
      env,
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(approvalId);
    const approved = await runToExit({
      argv: [
        process.execPath,
        GOONDAN_BIN,
        "approve",
        approvalId,
        "--port",
        String(world.port),
        "--state-root",
        world.stateRoot,
      ],
      env,
    });
    expect(approved.code).toBe(0);
    await until(() => world.effects().length === 1, { timeoutMs: 30_000 });
    const decided = await call(world, "GET", `/v1/events/${encodeURIComponent(pending.body.approvals[0].eventId)}`, {
      token,
    });
    expect(decided.status).toBe(200);
    // The studio's link was printed on stderr (never in a log line) and logs in as `local`.
    expect(world.stderr()).toContain("logs in once, as local");
  }, 90_000);

  // The bash sandbox hides the state root (src/tools/sandbox-profile.ts); the command here even has the host's network.
  it.skipIf(!onLinux)(
    "without a configured token: the shell cannot read the state root's api-token",
    async () => {
      const world = await startAuthWorld({ defer });
      const token = readStateRootToken(world.stateRoot) as string;
      const held = await send(world, token, "worker", "job-2");
      const approvalId = held.approvalIds?.[0] as string;
      const file = stateRootTokenPath(world.stateRoot);
      world.attack.script = `${selfApprovalScript(world.port, approvalId)}; T=$(cat ${file} 2>/dev/null); echo "READ \${#T}"; echo "STOLEN $(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -H "authorization: Bearer $T" -H 'content-type: application/json' -d '{"decision":"approve"}' http://127.0.0.1:${world.port}/v1/approvals/${approvalId})"`;
      await send(world, token, "attacker", "attack");
      expect(world.attackOutput()).toContain("READ 0");
      expect(world.attackOutput()).toContain("STOLEN 401");
      expect(world.effects()).toEqual([]);
    },
    90_000,
  );

  it("with a tokens file: curl without a token is refused, scopes and approvers hold, the studio approves as alice", async () => {
    const world = await startAuthWorld({
      defer,
      approvers: ["alice", "carol"],
      tokensFile: TOKENS_FILE,
      env: { GOONDAN_STUDIO_CREDENTIAL: "alice" },
    });
    // carol is no credential: goondan run says so at start.
    const warning = world.lines.find((line) => String(line.msg).includes("no credential of the API"));
    expect(warning?.agent).toBe("worker");
    expect(warning?.approvers).toEqual(["carol"]);
    // A configured credential: no token file is made, so there is none to steal.
    expect(existsSync(stateRootTokenPath(world.stateRoot))).toBe(false);
    const held = await send(world, TOKENS.ci, "worker", "job-3");
    expect(held.status).toBe("awaiting_approval");
    const approvalId = held.approvalIds?.[0] as string;

    world.attack.script = selfApprovalScript(world.port, approvalId);
    await send(world, TOKENS.ci, "attacker", "attack");
    expect(world.attackOutput()).toContain("LIST 401");
    expect(world.attackOutput()).toContain("APPROVE 401");

    const decide = (token: string, body: Record<string, unknown> = { decision: "approve" }) =>
      call(world, "POST", `/v1/approvals/${approvalId}`, { token, body });
    // A read or an operate credential cannot approve; an approver cannot claim to be alice; bob is not listed.
    for (const token of [TOKENS.reader, TOKENS.ci]) {
      const refused = await decide(token);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("E_API_SCOPE_REQUIRED");
    }
    const spoofed = await decide(TOKENS.bob, { decision: "approve", approver: "alice" });
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.error.code).toBe("E_APPROVAL_APPROVER_MISMATCH");
    const unlisted = await decide(TOKENS.bob);
    expect(unlisted.status).toBe(403);
    expect(unlisted.body.error.code).toBe("E_APPROVAL_FORBIDDEN");
    expect(world.effects()).toEqual([]);

    // The studio: the printed link logs in once, as alice; its approve button sends no approver.
    const code = await until(() => loginCode(world.stderr()), { timeoutMs: 10_000 });
    const login = await call(world, "GET", `/login?token=${code}`);
    expect(login.status).toBe(303);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect(cookie).toMatch(/^goondan_session_\d+=/);
    expect((await call(world, "GET", `/login?token=${code}`)).status).toBe(401);
    const approved = await call(world, "POST", `/v1/approvals/${approvalId}`, {
      cookie,
      body: { decision: "approve", wait: true },
    });
    expect(approved.status).toBe(200);
    expect(approved.body.approval.decidedBy).toBe("alice");
    expect(approved.body.outcome.status).toBe("ok");
    expect(world.effects()).toEqual(["job-3"]);
  }, 90_000);
});

describe.skipIf(curl === null)("A2A decisions go through the same check", () => {
  it("an operate credential's follow-up cannot approve; one with approve can, and is recorded", async () => {
    const world = await startAuthWorld({
      defer,
      tokensFile: `${TOKENS_FILE}  - { name: ops, token: ops-operates-approves-0123, scopes: [operate, approve] }\n`,
    });
    const rpc = (token: string, params: unknown) =>
      call(world, "POST", "/v1/a2a", {
        token,
        headers: { "A2A-Version": "1.0" },
        body: { jsonrpc: "2.0", id: 1, method: "SendMessage", params },
      });
    const message = (text: string, taskId?: string) => ({
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text }],
        contextId: "ctx-auth",
        ...(taskId ? { taskId } : {}),
      },
    });
    const held = await rpc(TOKENS.ci, message("job-a2a"));
    const task = held.body.result?.task ?? held.body.result;
    expect(task?.status?.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const refused = await rpc(TOKENS.ci, message("approve", task.id));
    expect(JSON.stringify(refused.body)).toContain("E_API_SCOPE_REQUIRED");
    expect(world.effects()).toEqual([]);
    const approved = await rpc("ops-operates-approves-0123", message("approve", task.id));
    const done = approved.body.result?.task ?? approved.body.result;
    expect(done?.status?.state).toBe("TASK_STATE_COMPLETED");
    expect(world.effects()).toEqual(["job-a2a"]);
  }, 90_000);
});

describe("the HTTP rate limit of a real goondan run", () => {
  it("answers 429 E_API_RATE_LIMITED with Retry-After per credential, then per address", async () => {
    const world = await startAuthWorld({
      defer,
      tokensFile: TOKENS_FILE,
      env: {
        GOONDAN_API_RATE_LIMIT_LOOPBACK: "on",
        GOONDAN_API_RATE_LIMIT_CREDENTIAL: "3/60",
        GOONDAN_API_RATE_LIMIT_ADDRESS: "10/60",
      },
    });
    const statuses = async (token: string | undefined, count: number) => {
      const seen: number[] = [];
      for (let i = 0; i < count; i += 1)
        seen.push((await call(world, "GET", "/v1/processes", token ? { token } : {})).status);
      return seen;
    };
    expect(await statuses(TOKENS.reader, 3)).toEqual([200, 200, 200]);
    const limited = await call(world, "GET", "/v1/processes", { token: TOKENS.reader });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("E_API_RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Another credential has its own bucket; the address's is shared: 4 + 3 = 7 of 10 so far.
    expect(await statuses(TOKENS.alice, 3)).toEqual([200, 200, 200]);
    expect(await statuses(undefined, 4)).toEqual([401, 401, 401, 429]);
  }, 60_000);
});
