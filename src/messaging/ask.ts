import { query, type Ref } from './nact.ts';

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

/** Builds a request message around the reply-to ref that {@link ask} supplies. */
export type Request<M, R> = (sender: Ref<R>) => M;

/** The reply type a request builder expects. */
export type ReplyOf<B> = B extends Request<unknown, infer R> ? R : never;

/**
 * Sends a request to an actor and waits for the reply dispatched to its `sender`.
 * Rejects with {@link AskTimeoutError} or {@link ActorUnavailableError}, never hangs.
 */
export async function ask<M, R>(ref: Ref<M>, build: Request<NoInfer<M>, R>, timeoutMs: number): Promise<R> {
  try {
    return await query(ref, build, timeoutMs);
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (message === 'Query Timeout') throw new AskTimeoutError(timeoutMs);
    if (message.startsWith('Actor stopped or never existed')) throw new ActorUnavailableError();
    throw error;
  }
}
