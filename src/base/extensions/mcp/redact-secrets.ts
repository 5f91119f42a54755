/**
 * Replaces known secret values (an MCP server's resolved env and header values) in free text, such as the
 * server's stderr or an error message, before it reaches a log line or the model. The logger redacts secret
 * *fields*; text can only be cleaned by the values themselves.
 */
export const REDACTED = "[redacted]";

export function redactSecrets(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const secret of secrets) if (secret !== "" && clean.includes(secret)) clean = clean.replaceAll(secret, REDACTED);
  return clean;
}
