/** Why an ask ended without a reply. HTTP turns each of them into 503. */

/** The actor did not answer in time: it is overloaded or stuck. */
export class AskTimeoutError extends Error {
  override readonly name = 'AskTimeoutError';
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no reply within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** The actor is stopped (for instance during shutdown), or its system stopped before it answered. */
export class ActorUnavailableError extends Error {
  override readonly name = 'ActorUnavailableError';
  constructor() {
    super('actor stopped or never existed');
  }
}

/** The actor's mailbox, with the work it runs beside it, is at its bound: the request is refused at once. */
export class MailboxFullError extends Error {
  override readonly name = 'MailboxFullError';
  readonly limit: number;
  constructor(limit: number) {
    super(`${limit} messages wait in the mailbox or run beside it`);
    this.limit = limit;
  }
}
