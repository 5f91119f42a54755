/**
 * The AG-UI routes in process (over the fake spawner): input that is not a RunAgentInput, a run without a user
 * message and an unknown agent are coded 4xx answers before any stream opens; a resume entry naming no approval
 * ends its run with RUN_ERROR; how resume entries read as decisions; the surface turned off is not served.
 */
import { describe, expect, it } from "bun:test";
import { resumeDecision } from "../../../src/http/ag-ui/ag-ui-input.ts";
import { apiSurfacesFromEnv } from "../../../src/http/api-surfaces.ts";
import { apiFixture, bodyOf } from "../api-fixture.ts";

const input = (extra: Record<string, unknown> = {}) => ({
  threadId: "thread-1",
  runId: "run-1",
  messages: [{ id: "m1", role: "user", content: "hello" }],
  ...extra,
});

describe("POST /v1/ag-ui refusals", () => {
  it("answers input that is not a RunAgentInput with 400 naming the field", async () => {
    const { request } = apiFixture();
    const response = await request("POST", "/v1/ag-ui", { runId: "r", messages: [] });
    expect(response.status).toBe(400);
    const body = await bodyOf(response);
    expect(body.error.code).toBe("E_API_BAD_REQUEST");
    expect(body.error.message).toContain("threadId");
  });

  it("answers a run with no user message and no resume with 400 E_AG_UI_NO_USER_MESSAGE", async () => {
    const { request } = apiFixture();
    const response = await request(
      "POST",
      "/v1/ag-ui",
      input({ messages: [{ id: "a", role: "assistant", content: "x" }] }),
    );
    expect(response.status).toBe(400);
    expect((await bodyOf(response)).error.code).toBe("E_AG_UI_NO_USER_MESSAGE");
  });

  it("answers an unknown agent with 404 E_AGENT_NOT_FOUND", async () => {
    const { request } = apiFixture();
    const response = await request("POST", "/v1/ag-ui/nobody", input());
    expect(response.status).toBe(404);
    expect((await bodyOf(response)).error.code).toBe("E_AGENT_NOT_FOUND");
  });

  it("ends a run whose resume names no approval with RUN_ERROR", async () => {
    const { request } = apiFixture();
    const response = await request(
      "POST",
      "/v1/ag-ui",
      input({ resume: [{ interruptId: "apv_nope", status: "resolved" }] }),
    );
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"type":"RUN_STARTED"');
    expect(text).toContain('"type":"RUN_ERROR"');
    expect(text).toContain("E_APPROVAL_NOT_FOUND");
  });

  it("is not served when turned off", async () => {
    const { request } = apiFixture(apiSurfacesFromEnv({ GOONDAN_API_SURFACES_OFF: "ag-ui" }));
    expect((await request("POST", "/v1/ag-ui", input())).status).toBe(404);
  });
});

describe("resumeDecision", () => {
  it("approves a resolved entry unless its payload says no, and denies a cancelled one", () => {
    expect(resumeDecision({ interruptId: "a", status: "resolved" })).toEqual({ decision: "approve" });
    expect(
      resumeDecision({ interruptId: "a", status: "resolved", payload: { approved: false, reason: "no" } }),
    ).toEqual({
      decision: "deny",
      reason: "no",
    });
    expect(resumeDecision({ interruptId: "a", status: "resolved", payload: { decision: "deny" } }).decision).toBe(
      "deny",
    );
    expect(resumeDecision({ interruptId: "a", status: "cancelled" }).decision).toBe("deny");
  });
});
