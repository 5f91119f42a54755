/**
 * Normalizing a Connection's spec: its connector and swarm refs, ingress rules with their routes, config values
 * (a written `{valueFrom}` or `{value}` becomes a ValueSource), secrets, and `verify` (the webhook signing secret,
 * also kept under spec.secrets, written in only one of the two places). normalize.ts calls it for each Connection.
 */
import type { JsonValue } from "../shared/json.ts";
import { isJsonObject } from "../shared/json.ts";
import { normalizeRef, type NormalizeContext, type Raw } from "./normalize-ref.ts";
import type { ConnectionSpec, ConnectionVerify, IngressRule, ValueSource } from "./types.ts";
import { SIGNING_SECRET_KEY } from "./types.ts";

/** A Connection config value written as a ValueSource: `{valueFrom}` or exactly `{value}`. */
function isWrittenValueSource(value: unknown): value is Raw {
  return (
    isJsonObject(value) &&
    ("valueFrom" in value ||
      (Object.keys(value).length === 1 &&
        "value" in value &&
        ["string", "number", "boolean"].includes(typeof value.value)))
  );
}

export function normalizeValueSource(raw: Raw): ValueSource {
  if ("value" in raw) return { value: String(raw.value) };
  if (raw.valueFrom.env !== undefined) return { valueFrom: { env: raw.valueFrom.env } };
  return { valueFrom: { secretRef: { ref: raw.valueFrom.secretRef.ref, key: raw.valueFrom.secretRef.key } } };
}

export function normalizeConnection(spec: Raw, context: NormalizeContext): ConnectionSpec {
  const connectorRef = normalizeRef(spec.connectorRef, "Connector", ["spec", "connectorRef"], context);
  const swarmRef =
    spec.swarmRef === undefined ? undefined : normalizeRef(spec.swarmRef, "Swarm", ["spec", "swarmRef"], context);
  const rules: IngressRule[] = ((spec.ingress?.rules ?? []) as Raw[]).map((rule, index) => {
    const route: Raw = rule.route ?? {};
    const agentRef =
      route.agentRef === undefined
        ? undefined
        : normalizeRef(route.agentRef, "Agent", ["spec", "ingress", "rules", index, "route", "agentRef"], context);
    return {
      match: { ...(rule.match ?? {}) },
      route: {
        ...(agentRef ? { agentRef } : {}),
        ...(route.instanceKey !== undefined ? { instanceKey: route.instanceKey } : {}),
        ...(route.instanceKeyProperty !== undefined ? { instanceKeyProperty: route.instanceKeyProperty } : {}),
        ...(route.instanceKeyPrefix !== undefined ? { instanceKeyPrefix: route.instanceKeyPrefix } : {}),
      },
      ...(typeof rule.signal === "string" ? { signal: rule.signal } : {}),
    };
  });
  const config: Record<string, ValueSource | JsonValue> | undefined = spec.config
    ? Object.fromEntries(
        Object.entries(spec.config as Raw).map(([key, value]) => [
          key,
          isWrittenValueSource(value) ? normalizeValueSource(value) : (value as JsonValue),
        ]),
      )
    : undefined;
  const secrets: Record<string, ValueSource> | undefined = spec.secrets
    ? Object.fromEntries(Object.entries(spec.secrets as Raw).map(([key, value]) => [key, normalizeValueSource(value)]))
    : undefined;
  const verify = normalizeVerify(spec.verify, secrets, context);
  const signingSecret = verify?.webhook?.signingSecret;
  return {
    connectorRef: connectorRef ?? { kind: "Connector", name: "" },
    ...(swarmRef ? { swarmRef } : {}),
    ...(config ? { config } : {}),
    ...(secrets || signingSecret
      ? { secrets: { ...secrets, ...(signingSecret ? { [SIGNING_SECRET_KEY]: signingSecret } : {}) } }
      : {}),
    ...(verify ? { verify } : {}),
    ingress: { rules },
  };
}

function normalizeVerify(
  raw: Raw | undefined,
  secrets: Record<string, ValueSource> | undefined,
  context: NormalizeContext,
): ConnectionVerify | undefined {
  if (raw === undefined) return undefined;
  const verify: ConnectionVerify = raw.webhook
    ? { webhook: { signingSecret: normalizeValueSource(raw.webhook.signingSecret) } }
    : {};
  if (verify.webhook && secrets?.[SIGNING_SECRET_KEY] !== undefined) {
    context.issues.at(context.site, ["spec", "verify", "webhook", "signingSecret"], {
      code: "E_CONFIG_VERIFY_CONFLICT",
      message: `expected the webhook signing secret once, found it in both spec.verify.webhook.signingSecret and spec.secrets.${SIGNING_SECRET_KEY}`,
      suggestion: `keep spec.verify.webhook.signingSecret and remove spec.secrets.${SIGNING_SECRET_KEY}`,
    });
  }
  return verify;
}
