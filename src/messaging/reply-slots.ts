/**
 * Asks: a message sent with a reply slot of its own (`reply-table.ts`), answered once, or rejected
 * at its deadline; and the mailbox bounds that asks respect.
 */
import { seal } from './envelope.ts';
import { ActorUnavailableError, MailboxFullError } from './errors.ts';
import { concrete, isActor, type AnyRef, type RawActor, type Ref } from './nact.ts';
import { openSlot } from './reply-table.ts';
import { inFlight } from './work-in-flight.ts';

/**
 * Sends the message built with a fresh reply slot and resolves with the first reply; rejects with
 * {@link AskTimeoutError}, or {@link ActorUnavailableError} when the actor is not running or is
 * stopped ({@link stop}, {@link stopSystem}) before it answers, and with `bounded`, with
 * {@link MailboxFullError} without sending when the actor's mailbox, with the work beside it, is at its
 * {@link limitMailbox} bound. nact's own query names its reply
 * slots with a random 32-bit number, so among thousands of concurrent asks two can share one (one
 * caller gets the other's reply); the slots here are numbered in sequence.
 */
export function query<M, R>(
  ref: Ref<M>,
  build: (sender: Ref<R>) => M,
  timeoutMs: number,
  options: { readonly bounded?: boolean } = {},
): Promise<R> {
  // Undefined for an actor that stopped, and for any actor of a system that stopped.
  const actor = concrete(ref);
  if (!actor || !isActor(actor)) return Promise.reject(new ActorUnavailableError());
  const limit = options.bounded ? mailboxLimits.get(actor) : undefined;
  if (limit !== undefined && actor.mailbox.length + inFlight(actor.reference) >= limit)
    return Promise.reject(new MailboxFullError(limit));
  return new Promise<R>((resolve, reject) => {
    const sender = openSlot(actor.reference.system, timeoutMs, resolve as (reply: unknown) => void, reject);
    actor.dispatch(seal(build(sender as unknown as Ref<R>)), sender);
  });
}

const mailboxLimits = new WeakMap<RawActor, number>();

/**
 * Bounds how many messages may wait in the actor's mailbox, with the work it runs beside it
 * (`work-in-flight.ts`), before {@link ../messaging/ask.ts} refuses new requests to it (Akka's
 * bounded mailbox, for asks only: replies and an actor's own completions are never dropped).
 * Keyed by the live actor, so a respawned actor starts unbounded.
 */
export function limitMailbox(ref: AnyRef, limit: number): void {
  const actor = concrete(ref);
  if (actor && isActor(actor)) mailboxLimits.set(actor, limit);
}
