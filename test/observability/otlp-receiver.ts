/**
 * A loopback OTLP/HTTP trace receiver for tests (127.0.0.1, a free port): takes `POST /v1/traces` in http/json or
 * http/protobuf and keeps every span flattened with its resource attributes. @opentelemetry/otlp-transformer only
 * encodes requests (it has no decoder and ships no .proto runtime), so protobuf bodies are read here by a small
 * wire-format decoder over the fields of opentelemetry/proto/trace/v1 and common/v1 that the tests look at.
 */

export type AttributeValue = string | number | boolean | string[] | undefined;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  status: number;
  attributes: Record<string, AttributeValue>;
  resource: Record<string, AttributeValue>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the requests received. */
  contentTypes: string[];
  close(): Promise<void>;
}

type Field = { number: number; wire: number; value: bigint | Uint8Array };

function fields(bytes: Uint8Array): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[at++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const wire = key & 7;
    const number = key >> 3;
    if (wire === 0) out.push({ number, wire, value: varint() });
    else if (wire === 1) {
      out.push({ number, wire, value: new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0, true) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ number, wire, value: bytes.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      out.push({
        number,
        wire,
        value: BigInt(new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, true)),
      });
      at += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const text = (value: bigint | Uint8Array): string => new TextDecoder().decode(value as Uint8Array);
const hex = (value: bigint | Uint8Array): string => Buffer.from(value as Uint8Array).toString("hex");

function anyValue(bytes: Uint8Array): AttributeValue {
  for (const field of fields(bytes)) {
    if (field.number === 1) return text(field.value);
    if (field.number === 2) return field.value === 1n;
    if (field.number === 3) return Number(BigInt.asIntN(64, field.value as bigint));
    if (field.number === 4) return new DataView(new BigUint64Array([field.value as bigint]).buffer).getFloat64(0, true);
    if (field.number === 5)
      return fields(field.value as Uint8Array).map((item) => String(anyValue(item.value as Uint8Array)));
  }
  return undefined;
}

function keyValues(list: Field[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const field of list) {
    const parts = fields(field.value as Uint8Array);
    const key = parts.find((part) => part.number === 1);
    const value = parts.find((part) => part.number === 2);
    if (key) out[text(key.value)] = value ? anyValue(value.value as Uint8Array) : undefined;
  }
  return out;
}

function decodeProtobuf(body: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of fields(body).filter((field) => field.number === 1)) {
    const parts = fields(resourceSpans.value as Uint8Array);
    const resourceField = parts.find((part) => part.number === 1);
    const resource = resourceField
      ? keyValues(fields(resourceField.value as Uint8Array).filter((part) => part.number === 1))
      : {};
    for (const scopeSpans of parts.filter((part) => part.number === 2)) {
      for (const spanField of fields(scopeSpans.value as Uint8Array).filter((part) => part.number === 2)) {
        const span = fields(spanField.value as Uint8Array);
        const one = (number: number) => span.find((part) => part.number === number)?.value;
        const status = one(15);
        spans.push({
          traceId: hex(one(1) ?? new Uint8Array()),
          spanId: hex(one(2) ?? new Uint8Array()),
          parentSpanId: hex(one(4) ?? new Uint8Array()),
          name: text(one(5) ?? new Uint8Array()),
          kind: Number(one(6) ?? 0n),
          startNs: (one(7) as bigint | undefined) ?? 0n,
          endNs: (one(8) as bigint | undefined) ?? 0n,
          status: status ? Number(fields(status as Uint8Array).find((part) => part.number === 3)?.value ?? 0n) : 0,
          attributes: keyValues(span.filter((part) => part.number === 9)),
          resource,
        });
      }
    }
  }
  return spans;
}

interface JsonKeyValue {
  key: string;
  value: {
    stringValue?: string;
    boolValue?: boolean;
    intValue?: number | string;
    doubleValue?: number;
    arrayValue?: { values?: { stringValue?: string }[] };
  };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    out[key] =
      value.stringValue ??
      value.boolValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.doubleValue ??
      value.arrayValue?.values?.map((item) => String(item.stringValue));
  }
  return out;
}

function decodeJson(body: string): ReceivedSpan[] {
  const request = JSON.parse(body) as {
    resourceSpans?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          startTimeUnixNano: string | number;
          endTimeUnixNano: string | number;
          status?: { code?: number };
          attributes?: JsonKeyValue[];
        }[];
      }[];
    }[];
  };
  return (request.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? "",
        name: span.name,
        kind: span.kind,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        status: span.status?.code ?? 0,
        attributes: jsonAttributes(span.attributes),
        resource: jsonAttributes(resourceSpans.resource?.attributes),
      })),
    ),
  );
}

export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method !== "POST" || new URL(request.url).pathname !== "/v1/traces")
        return new Response("not found", { status: 404 });
      const type = request.headers.get("content-type") ?? "";
      contentTypes.push(type);
      if (type.includes("json")) {
        spans.push(...decodeJson(await request.text()));
        return Response.json({});
      }
      spans.push(...decodeProtobuf(new Uint8Array(await request.arrayBuffer())));
      return new Response(new Uint8Array(), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    spans,
    contentTypes,
    close: async () => void (await server.stop(true)),
  };
}
