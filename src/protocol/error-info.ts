/**
 * ErrorInfo: the one shape an error takes wherever it crosses a boundary — a child's turn outcome, a reply to a
 * requester, a runtime call's refusal, a connector's ack, the HTTP API's `error` field. `code` is stable (tests and
 * callers branch on it); `message` says what happened; `suggestion` what to do; `helpUrl` where to read more.
 */
export interface ErrorInfo {
  code: string;
  message: string;
  suggestion?: string;
  helpUrl?: string;
}

/** An ErrorInfo with only the fields that are set (no `undefined` members, so it compares and serializes cleanly). */
export function errorInfo(options: ErrorInfo): ErrorInfo {
  return {
    code: options.code,
    message: options.message,
    ...(options.suggestion === undefined ? {} : { suggestion: options.suggestion }),
    ...(options.helpUrl === undefined ? {} : { helpUrl: options.helpUrl }),
  };
}
