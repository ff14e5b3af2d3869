import { mailboxLimit, mailboxSize, query, type Ref } from './nact.ts';

/** The actor did not answer in time: it is overloaded or stuck. HTTP turns this into 503. */
export class AskTimeoutError extends Error {
  override readonly name = 'AskTimeoutError';
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no reply within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** The actor is stopped (for instance during shutdown). HTTP turns this into 503. */
export class ActorUnavailableError extends Error {
  override readonly name = 'ActorUnavailableError';
  constructor() {
    super('actor stopped or never existed');
  }
}

/** The actor's mailbox is at its bound: the request is refused at once. HTTP turns this into 503. */
export class MailboxFullError extends Error {
  override readonly name = 'MailboxFullError';
  readonly limit: number;
  constructor(limit: number) {
    super(`mailbox holds ${limit} waiting messages`);
    this.limit = limit;
  }
}

/** Builds a request message around the reply-to ref that {@link ask} supplies. */
export type Request<M, R> = (sender: Ref<R>) => M;

/** The reply type a request builder expects. */
export type ReplyOf<B> = B extends Request<unknown, infer R> ? R : never;

export interface AskOptions {
  /**
   * Send even past the mailbox bound: for work already admitted (an actor's own follow-up asks),
   * which shedding would lose rather than defer.
   */
  readonly ignoreMailboxLimit?: boolean;
}

/**
 * Sends a request to an actor and waits for the reply dispatched to its `sender`.
 * Rejects with {@link AskTimeoutError} or {@link ActorUnavailableError}, never hangs, and with
 * {@link MailboxFullError} without sending when the actor's mailbox is at its bound (`limitMailbox`).
 */
export async function ask<M, R>(ref: Ref<M>, build: Request<NoInfer<M>, R>, timeoutMs: number, options: AskOptions = {}): Promise<R> {
  const limit = options.ignoreMailboxLimit ? undefined : mailboxLimit(ref);
  if (limit !== undefined && mailboxSize(ref) >= limit) throw new MailboxFullError(limit);
  try {
    return await query(ref, build, timeoutMs);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (message === 'Query Timeout') throw new AskTimeoutError(timeoutMs);
    if (message.startsWith('Actor stopped or never existed')) throw new ActorUnavailableError();
    throw error;
  }
}
