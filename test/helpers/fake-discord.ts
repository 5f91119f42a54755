/**
 * A loopback fake of Discord for an interactions endpoint, both directions. As the sender, it holds an
 * application's Ed25519 key pair and POSTs interactions signed the way Discord signs them (`X-Signature-
 * Ed25519` over timestamp + body); `publicKeyHex` goes in the connector's config. As the API (Bun.serve on
 * 127.0.0.1, port 0), it takes the connector's later answers (PATCH .../messages/@original, POST follow-ups),
 * checks the application id, the interaction token it issued and the `{content}` body (at most 2000
 * characters), records them in `replies`, and lists anything else in `rejected`.
 */
import { generateKeyPairSync, sign } from "node:crypto";

export interface DiscordReply {
  kind: "edit-original" | "follow-up";
  interactionToken: string;
  content: string;
}

export interface FakeDiscord {
  /** The API base URL (`config.DISCORD_API_BASE_URL` / GOONDAN_DISCORD_API_BASE_URL). */
  apiUrl: string;
  applicationId: string;
  publicKeyHex: string;
  replies: DiscordReply[];
  rejected: string[];
  /** Signs and POSTs an interaction (id, token and application_id filled in); returns the response and the token used. */
  sendInteraction(
    target: string,
    interaction: Record<string, unknown>,
    options?: { badSignature?: boolean },
  ): Promise<{ response: Response; token: string }>;
  close(): Promise<void>;
}

export async function startFakeDiscord(): Promise<FakeDiscord> {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const publicKeyHex = publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("hex");
  const applicationId = "100000000000000001";
  const issued = new Set<string>();
  const replies: DiscordReply[] = [];
  const rejected: string[] = [];
  let counter = 0;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const url = new URL(request.url);
      const match = /^\/api\/v10\/webhooks\/([^/]+)\/([^/]+)(\/messages\/@original)?$/.exec(url.pathname);
      const refuse = (status: number, why: string) => {
        rejected.push(`${request.method} ${url.pathname}: ${why}`);
        return Response.json({ message: why, code: 0 }, { status });
      };
      if (!match) return refuse(404, "unknown route");
      const [, app, token, original] = match;
      if (app !== applicationId) return refuse(404, "Unknown Application");
      if (!issued.has(decodeURIComponent(token ?? ""))) return refuse(401, "Invalid Webhook Token");
      const expected = original ? "PATCH" : "POST";
      if (request.method !== expected) return refuse(405, `expected ${expected}`);
      if (!(request.headers.get("content-type") ?? "").startsWith("application/json"))
        return refuse(400, "expected JSON");
      const body = (await request.json()) as { content?: unknown };
      if (typeof body.content !== "string" || body.content.length === 0 || body.content.length > 2000)
        return refuse(400, "content must be 1 to 2000 characters");
      replies.push({
        kind: original ? "edit-original" : "follow-up",
        interactionToken: decodeURIComponent(token ?? ""),
        content: body.content,
      });
      return Response.json({ id: String(++counter), content: body.content });
    },
  });

  return {
    apiUrl: `http://127.0.0.1:${server.port}/api/v10`,
    applicationId,
    publicKeyHex,
    replies,
    rejected,
    sendInteraction: async (target, interaction, options = {}) => {
      counter += 1;
      const token = `interaction-token-${counter}-${"x".repeat(20)}`;
      issued.add(token);
      const body = JSON.stringify({
        id: `9000${counter}`,
        application_id: applicationId,
        token,
        version: 1,
        ...interaction,
      });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = sign(null, Buffer.from(timestamp + body), privateKey).toString("hex");
      const headers = {
        "content-type": "application/json",
        "x-signature-timestamp": timestamp,
        "x-signature-ed25519": options.badSignature
          ? signature.replace(/^./, (c) => (c === "0" ? "1" : "0"))
          : signature,
      };
      return { response: await fetch(target, { method: "POST", headers, body }), token };
    },
    close: () => server.stop(true),
  };
}
