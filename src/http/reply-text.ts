/**
 * The reply text of a streamed answer (OpenAI chat, AG-UI), sent once: those streams cannot take text back, so when a turn's text
 * starts over (a retried model call, a redelivered event) the repeated beginning is not sent again and only what
 * goes past it is; when the turn ends, whatever of its final text was not streamed (a Model that does not stream
 * sends none) is the last piece.
 */
export class ReplyText {
  private sent = "";
  private attempt = "";

  /** The part of `text` to send now (empty while a restarted turn repeats what was sent). */
  add(text: string): string {
    this.attempt += text;
    if (this.attempt.length <= this.sent.length) return "";
    const fresh = this.attempt.slice(this.sent.length);
    this.sent = this.attempt;
    return fresh;
  }

  restart(): void {
    this.attempt = "";
  }

  /** What of the final `response` is still to send. */
  rest(response: string): string {
    return response.startsWith(this.sent) ? response.slice(this.sent.length) : "";
  }
}
