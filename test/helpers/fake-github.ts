/**
 * A loopback fake of GitHub's webhook deliveries: POSTs an event to a connector the way GitHub does
 * (`X-GitHub-Event`, a fresh `X-GitHub-Delivery`, `X-Hub-Signature-256: sha256=<HMAC of the raw body>` with
 * the hook's secret, a GitHub-Hookshot user agent), as JSON or form-encoded (`payload=`), and records each
 * delivery with the connector's answer, as GitHub's "Recent deliveries" page does.
 */
import { createHmac, randomUUID } from "node:crypto";

export interface GithubDelivery {
  id: string;
  event: string;
  status: number;
  answer: unknown;
}

export interface FakeGithub {
  secret: string;
  deliveries: GithubDelivery[];
  deliver(
    target: string,
    event: string,
    payload: Record<string, unknown>,
    options?: { secret?: string | null; form?: boolean; deliveryId?: string },
  ): Promise<GithubDelivery>;
}

export function githubSignature(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export function fakeGithub(options: { secret?: string } = {}): FakeGithub {
  const secret = options.secret ?? "github-hook-secret";
  const deliveries: GithubDelivery[] = [];
  return {
    secret,
    deliveries,
    deliver: async (target, event, payload, deliveryOptions = {}) => {
      const json = JSON.stringify(payload);
      const body = deliveryOptions.form ? new URLSearchParams({ payload: json }).toString() : json;
      const id = deliveryOptions.deliveryId ?? randomUUID();
      const signingSecret = deliveryOptions.secret === undefined ? secret : deliveryOptions.secret;
      const headers: Record<string, string> = {
        "content-type": deliveryOptions.form ? "application/x-www-form-urlencoded" : "application/json",
        "user-agent": "GitHub-Hookshot/fake",
        "x-github-event": event,
        "x-github-delivery": id,
        ...(signingSecret === null ? {} : { "x-hub-signature-256": githubSignature(body, signingSecret) }),
      };
      const response = await fetch(target, { method: "POST", headers, body });
      const text = await response.text();
      let answer: unknown = text;
      try {
        answer = JSON.parse(text);
      } catch {
        // not JSON
      }
      const delivery = { id, event, status: response.status, answer };
      deliveries.push(delivery);
      return delivery;
    },
  };
}
