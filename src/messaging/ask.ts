import type { Ref } from './nact.ts';
import { query } from './reply-slots.ts';

export { ActorUnavailableError, AskTimeoutError, MailboxFullError } from './errors.ts';

/** Builds a request message around the reply-to ref that {@link ask} supplies. */
export type Request<M, R> = (sender: Ref<R>) => M;

/** The message of kind `K` of a protocol's `Command` union `C`. */
export type MessageOf<C extends { readonly type: string }, K extends C['type']> = Extract<C, { readonly type: K }>;

/** The reply a message takes: what its `sender` accepts. */
export type ReplyOf<M> = M extends { readonly sender: Ref<infer R> } ? R : never;

/**
 * A protocol's builder of the message of kind `K`, its reply type read from that message's `sender`:
 * `(p): RequestOf<Command, 'GetAccount'> => (sender) => ({ type: 'GetAccount', ...p, sender })`.
 * The literal is checked against the one message of that kind, so a builder needs no cast, and
 * `ask` with it resolves to that message's reply.
 */
export type RequestOf<C extends { readonly type: string }, K extends C['type']> = Request<
  MessageOf<C, K>,
  ReplyOf<MessageOf<C, K>>
>;

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
export function ask<M, R>(
  ref: Ref<M>,
  build: Request<NoInfer<M>, R>,
  timeoutMs: number,
  options: AskOptions = {},
): Promise<R> {
  // Not an async function: returning the ask's own promise from one would wrap it in a second,
  // settled three microtask turns later, on every request.
  try {
    return query(ref, build, timeoutMs, { bounded: options.ignoreMailboxLimit !== true });
  } catch (error) {
    return Promise.reject(error);
  }
}
