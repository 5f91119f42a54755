/**
 * The agent child's instance link over IPC (agent/child/ipc-instance-link.ts): a read of older messages goes out as
 * `older_messages` and resolves with its `older_messages_result`, and is rejected when the store fails it or the
 * channel to the orchestrator is lost.
 */
import { describe, expect, it } from "bun:test";
import { IpcInstanceLink } from "../../src/agent/child/ipc-instance-link.ts";
import type { ChildMessage } from "../../src/protocol/ipc-messages.ts";
import type { Message } from "../../src/protocol/conversation.ts";

const message: Message = {
  id: "m1",
  data: { role: "user", content: "hello" },
  metadata: {},
  createdAt: "2026-11-23T00:00:00.000Z",
  source: { type: "user" },
};

function link() {
  const sent: ChildMessage[] = [];
  return { link: new IpcInstanceLink("a/k", (outgoing) => void sent.push(outgoing)), sent };
}

const requestOf = (sent: ChildMessage[]) => {
  const last = sent.at(-1);
  if (last?.type !== "older_messages") throw new Error(`expected an older_messages request, got ${last?.type}`);
  return last.payload;
};

describe("IpcInstanceLink.olderMessages", () => {
  it("asks the orchestrator for the page and resolves with its answer", async () => {
    const { link: ipc, sent } = link();
    const read = ipc.olderMessages({ before: "m2", limit: 1 });
    const request = requestOf(sent);
    expect(request).toMatchObject({ before: "m2", limit: 1 });
    ipc.handleOlderMessages({ requestId: request.requestId, messages: [message] });
    expect(await read).toEqual([message]);
  });

  it("rejects with the store's code when the read failed", async () => {
    const { link: ipc, sent } = link();
    const read = ipc.olderMessages({});
    ipc.handleOlderMessages({
      requestId: requestOf(sent).requestId,
      error: { code: "E_STORE_READ_FAILED", message: "disk I/O error" },
    });
    await expect(read).rejects.toMatchObject({ code: "E_STORE_READ_FAILED" });
  });

  it("rejects reads waiting and refuses new ones once the channel is lost", async () => {
    const { link: ipc } = link();
    const waiting = ipc.olderMessages({});
    ipc.failAll("the orchestrator is gone");
    await expect(waiting).rejects.toMatchObject({ code: "E_STORE_UNREACHABLE" });
    await expect(ipc.olderMessages({})).rejects.toMatchObject({ code: "E_STORE_UNREACHABLE" });
  });
});

describe("IpcInstanceLink.commit", () => {
  it("says `sync: false` only for a commit that asks for it, and resolves on its `committed`", async () => {
    const { link: ipc, sent } = link();
    const plain = ipc.commit({ changes: [{ type: "append", message }] });
    const applied = ipc.commit({ changes: [{ type: "append", message }] }, { sync: false });
    const commits = sent.filter((outgoing) => outgoing.type === "commit").map((outgoing) => outgoing.payload);
    expect(commits).toHaveLength(2);
    expect(commits[0]).not.toHaveProperty("sync");
    expect(commits[1]).toMatchObject({ seq: 2, sync: false });
    ipc.handleCommitted({ seq: 1 });
    ipc.handleCommitted({ seq: 2 });
    await Promise.all([plain, applied]);
  });
});
