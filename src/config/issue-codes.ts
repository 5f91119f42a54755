/**
 * The stable codes of config issues, each with the one line that explains it, and their severity. Errors
 * make the bundle invalid; warnings (`W_…`) leave it loadable. Where the public Goondan project has a dedicated code for a case, that code
 * is used here too (docs/error-codes.md lists the older spellings it replaced). Tests and tools match on
 * these codes, never on message text.
 */
export const ISSUE_CODES = {
  E_FILE_NOT_FOUND: "the bundle directory or its goondan.yaml does not exist (or is not a regular file)",
  E_CONFIG_FILE_UNREADABLE: "a bundle YAML file exists but cannot be read (permissions, I/O error)",
  E_CONFIG_FILE_TOO_LARGE: "a bundle YAML file is larger than 1 MiB",
  E_CONFIG_TOO_MANY_DOCUMENTS: "a bundle YAML file holds more than 100 documents",
  E_KIND_MISSING: "the bundle holds no resource document at all",
  E_CONFIG_PARSE_ERROR: "a document is not valid YAML (the message gives line and column)",
  E_CONFIG_DOCUMENT_NOT_OBJECT: "a document is a scalar or a list instead of a mapping",
  E_CONFIG_UNSUPPORTED_API_VERSION: "a document's apiVersion is missing or is not goondan.ai/v1",
  E_CONFIG_MISSING_KIND: "a document has no kind",
  E_CONFIG_UNKNOWN_KIND: "a document's kind is not one of the nine known kinds",
  E_CONFIG_PACKAGE_DOC_POSITION: "a Package document is not the first document of goondan.yaml",
  E_CONFIG_PACKAGE_DOC_DUPLICATED: "a file holds more than one Package document",
  E_CONFIG_SCHEMA_INVALID: "a field is missing, unknown, or of the wrong type or value",
  E_CONFIG_INVALID_REF: 'an ObjectRef is not "Kind/name" nor {kind, name, package?}',
  E_CONFIG_VALUE_SOURCE_INVALID:
    "a ValueSource is not {value}, {valueFrom: {env}} nor {valueFrom: {secretRef: {ref, key}}}",
  E_CONFIG_INVALID_NAME: "a metadata.name uses characters outside lowercase letters, digits, '-', '_' and '.'",
  E_CONFIG_DUPLICATE_NAME: "two resources of the same kind share a name, or two exports of a Tool share a name",
  E_CONFIG_TOOL_NAME:
    "a Tool or export name contains '__', disallowed characters, or makes an LLM name over 64 characters",
  E_CONFIG_REF_NOT_FOUND: "an ObjectRef names a resource that does not exist",
  E_CONFIG_REF_KIND: "an ObjectRef names a kind that cannot be referenced there",
  E_CONFIG_ENTRY_AGENT_NOT_LISTED: "Swarm.spec.entryAgent is not one of Swarm.spec.agents",
  E_CONFIG_ROUTE_AGENT_NOT_IN_SWARM: "an ingress rule routes to an agent that is not in the Connection's Swarm",
  E_CONFIG_ROUTE_CONFLICT: "an ingress rule sets both route.instanceKey and route.instanceKeyProperty",
  E_CONFIG_SIGNAL_RULE_INVALID:
    "an ingress rule sets `signal` together with a route, or on a schedule (a tick is not a signal)",
  E_CONFIG_UNKNOWN_EVENT: "an ingress rule matches an event its Connector never emits",
  E_CONFIG_VERIFY_CONFLICT: "a Connection sets its webhook signing secret both in verify and in secrets.signingSecret",
  E_CONFIG_PROCESS_CONFLICT: "an Agent sets maxInstancesPerProcess with isolation: instance",
  E_CONFIG_PROMPT_CONFLICT: "an Agent sets both prompt.system and prompt.systemRef",
  E_CONFIG_PROMPT_NOT_FOUND: "an Agent's prompt.systemRef file does not exist (or is not a regular file)",
  E_CONFIG_PROMPT_TOO_LARGE: "an Agent's prompt.systemRef file is larger than 1 MiB",
  E_CONFIG_ENTRY_OUTSIDE_BUNDLE: "a bundle-relative path is absolute or escapes the bundle directory",
  E_CONFIG_ENTRY_NOT_FOUND: "an entry file does not exist",
  E_CONFIG_CASSETTE_NOT_REGULAR:
    "a replay Model's cassette is a directory, a FIFO, a device or a socket instead of a regular file",
  E_CONFIG_CASSETTE_TOO_LARGE: "a replay Model's cassette is larger than 16 MiB",
  E_CONFIG_PARAMETERS_INVALID: "a Tool export's parameters is not a valid JSON Schema of type object",
  E_CONFIG_MODULE_LOAD: "a Tool entry module failed to load (syntax error, throwing top-level code, timeout)",
  E_CONFIG_HANDLERS_MISSING: "a Tool entry module does not export a `handlers` object",
  E_CONFIG_HANDLER_MISSING: "a Tool export has no function in the module's `handlers`",
  E_CONFIG_ENV_MISSING: "an env var the selected Swarm needs is not set (checked by run and doctor, not by validate)",
  E_CONFIG_SWARM_NOT_FOUND: "the Swarm asked for (or any Swarm) does not exist",
  E_CONFIG_SWARM_AMBIGUOUS: "the bundle has several Swarms and none was named",
  E_CONFIG_INVALID: "the bundle is invalid (thrown by loadBundleOrThrow; the message lists the issues)",
  W_SWARM_MISSING: "the bundle defines no Swarm: it validates, but there is nothing to run",
  E_CONFIG_MCP_TRANSPORT:
    "an mcp server sets neither or both of command (stdio) and url (Streamable HTTP), or a field of the other transport",
  E_CONFIG_MCP_UNREACHABLE: "validate --probe-mcp could not start or connect to an mcp server, or list its tools",
  E_CONFIG_PACKAGE_NOT_INSTALLED: "a Package dependency is not installed in node_modules beside the bundle",
  E_CONFIG_PACKAGE_VERSION_MISMATCH: "an installed Package dependency's version is outside the range the Package names",
  E_CONFIG_PACKAGE_NO_BUNDLE: "an installed Package dependency holds no goondan.yaml",
  E_CONFIG_SCHEDULE_INVALID:
    "a schedule Connection's config has an unknown setting, neither or both of cron and every, or a bad catchUp",
  E_CONFIG_CRON_INVALID: "a schedule Connection's cron is not an expression of five or six valid fields",
  E_CONFIG_TIMEZONE_UNKNOWN: "a schedule Connection's timezone is not an IANA time zone",
  E_CONFIG_DURATION_INVALID: "a schedule Connection's every is not a duration from 1s to 366d (30s, 15m, 1h30m, 2d)",
  E_CONFIG_TEMPLATE_FIELD_UNKNOWN: "a schedule Connection's input template names a {{field}} a tick does not have",
  E_CONFIG_EVAL_MATCHER_INVALID:
    "an Eval's tool argument matcher is not a value nor one of {$contains}, {$regex, $flags?}, {$exists}, or its regex does not compile",
  E_CONFIG_EVAL_INPUT: "an Eval case sets neither or both of input and turns",
  E_CONFIG_EVAL_UNKNOWN_TOOL: "an Eval case expects a tool that no Agent of its Swarm is given",
  E_CONFIG_EVAL_AGENT_NOT_IN_SWARM: "an Eval (or one of its cases) names an Agent that is not in its Swarm",
  E_CONFIG_EVAL_DUPLICATE_CASE: "two cases of one Eval share a name",
  E_CONFIG_EVAL_PATH: "an Eval fixture or file expectation is absolute or leaves the workspace",
  W_CONFIG_EVAL_TOOL_UNLISTED:
    "an Eval case expects a tool no Tool declares, while an Extension of the Swarm may register it at run time",
  E_CONFIG_BUDGET_EMPTY: "an Agent's or Swarm's spec.budget limits neither tokens nor costUsd",
  W_CONFIG_YAML: "the YAML parser warned about a document",
  W_CONFIG_HANDLER_UNUSED: "a Tool module's `handlers` has a function no export declares",
  W_CONFIG_PROMPT_MISSING: "an Agent has no system prompt",
  W_CONFIG_DEPRECATED_FIELD:
    "a field is written in a deprecated spelling that still works (e.g. an Agent's spec.system)",
  W_CONFIG_REQUIRED_TOOL_UNKNOWN: "an Agent's requiredTools names a tool that none of its Tools exports",
  W_CONFIG_CASSETTE_MISSING: "a replay Model's cassette file does not exist yet",
  W_CONFIG_MCP_TOOL_REFUSED:
    "validate --probe-mcp found a server tool the model cannot be offered (its name or schema), or an allow-listed tool the server lacks",
} as const;

export type IssueCode = keyof typeof ISSUE_CODES;

export function severityOf(code: IssueCode): "error" | "warning" {
  return code.startsWith("W_") ? "warning" : "error";
}
