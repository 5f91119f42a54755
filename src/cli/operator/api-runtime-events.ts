/**
 * Runtime events read through a running orchestrator's API (`GET /v1/runtime-events`) for `goondan logs --port`:
 * one page per call, following the answer's cursor (a number on one host, `n1:12,n2:40` on a cluster node, where each
 * event names its `node`). The nodes of a cluster that did not answer are handed back so the command can say which
 * events it may lack.
 */
import { SystemError } from "../../shared/errors.ts";
import { apiError, callApi, type ApiTarget } from "./api-client.ts";

export interface ApiEventFilters {
  agent?: string;
  instanceKey?: string;
  turnId?: string;
  traceId?: string;
}

export interface ApiEventPage {
  events: Record<string, unknown>[];
  cursor: string;
  unanswered: Array<{ node: string; status: string }>;
  /** More events wait after `cursor` than this page held (a cluster node's page). */
  more: boolean;
}

/** Reads the page after `cursor` (`0`: from the start). Throws the API's error (its code kept) when it refuses. */
export async function apiRuntimeEvents(options: {
  target: ApiTarget;
  filters: ApiEventFilters;
  cursor: string;
}): Promise<ApiEventPage> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(options.filters)) if (typeof value === "string") query.set(name, value);
  query.set("after", options.cursor);
  const response = await callApi({ target: options.target, method: "GET", path: `/v1/runtime-events?${query}` });
  const body = response.body as
    | { events?: unknown; cursor?: unknown; unanswered?: unknown; more?: unknown }
    | undefined;
  if (response.status !== 200 || !Array.isArray(body?.events)) {
    const error = apiError(response.body);
    throw new SystemError(
      error?.code ?? "E_INTERNAL",
      `GET /v1/runtime-events answered ${response.status}${error ? ` ${error.code}: ${error.message}` : ""}`,
    );
  }
  return {
    events: body.events as Record<string, unknown>[],
    cursor: String(body.cursor ?? options.cursor),
    unanswered: Array.isArray(body.unanswered) ? (body.unanswered as Array<{ node: string; status: string }>) : [],
    more: body.more === true,
  };
}
