/**
 * Asks: a message sent with a reply slot of its own, answered once, or rejected at its deadline;
 * and the mailbox bounds that asks respect. Built on nact's table of temporary references.
 */
import { seal } from './envelope.ts';
import { ActorUnavailableError, AskTimeoutError, MailboxFullError } from './errors.ts';
import {
  concrete,
  isActor,
  raw,
  systemNamed,
  type AnyRef,
  type RawActor,
  type RawReplySlot,
  type Ref,
} from './nact.ts';

const MAX_TIMEOUT_MS = 2_147_483_647; // Node's longest timer; a longer one would fire at once
let lastReplySlot = 0;

/**
 * Sends the message built with a fresh reply slot and resolves with the first reply; rejects with
 * {@link AskTimeoutError}, or {@link ActorUnavailableError} when the actor is not running or is
 * stopped ({@link stop}, {@link stopSystem}) before it answers, and with `bounded`, with
 * {@link MailboxFullError} without sending when the actor's mailbox is at its {@link limitMailbox} bound. nact's own query names its reply
 * slots with a random 32-bit number, so among thousands of concurrent asks two can share one (one
 * caller gets the other's reply); the slots here are numbered in sequence (strings: never a nact id).
 */
export function query<M, R>(
  ref: Ref<M>,
  build: (sender: Ref<R>) => M,
  timeoutMs: number,
  options: { readonly bounded?: boolean } = {},
): Promise<R> {
  const system = systemNamed(raw(ref).system.name);
  const actor = system && concrete(ref);
  if (!system || !actor || !isActor(actor)) return Promise.reject(new ActorUnavailableError());
  const limit = options.bounded ? mailboxLimits.get(actor) : undefined;
  if (limit !== undefined && actor.mailbox.length >= limit) return Promise.reject(new MailboxFullError(limit));
  const id = `ask-${++lastReplySlot}`;
  const sender = { type: 'temp', id, system: { name: system.name } };
  const message = build(sender as unknown as Ref<R>);
  return new Promise<R>((resolve, reject) => {
    const slot = new ReplySlot(id, system.tempReferences, timeoutMs, resolve as (reply: unknown) => void, reject);
    system.tempReferences.set(id, slot);
    waitingAsks.add(slot);
    sweeper ??= setInterval(sweep, SWEEP_MS); // ref'd, as a timer per ask was: a waiting ask keeps the process alive
    actor.dispatch(seal(message), sender);
  });
}

/**
 * An ask waiting for its reply, until its deadline (epoch ms): one object per ask, in nact's table
 * of temporary references (where a reply finds it) and in the set the sweeper walks.
 */
class ReplySlot implements RawReplySlot {
  readonly deadline: number;
  private readonly id: string;
  private readonly table: Map<unknown, RawReplySlot>;
  readonly timeoutMs: number;
  private readonly onReply: (reply: unknown) => void;
  private readonly onError: (error: Error) => void;
  constructor(
    id: string,
    table: Map<unknown, RawReplySlot>,
    timeoutMs: number,
    onReply: (reply: unknown) => void,
    onError: (error: Error) => void,
  ) {
    this.id = id;
    this.table = table;
    this.timeoutMs = timeoutMs;
    this.onReply = onReply;
    this.onError = onError;
    this.deadline = Date.now() + Math.min(timeoutMs, MAX_TIMEOUT_MS);
  }
  resolve(reply: unknown): void {
    this.settle();
    this.onReply(reply);
  }
  reject(error: Error): void {
    this.settle();
    this.onError(error);
  }
  private settle(): void {
    waitingAsks.delete(this);
    this.table.delete(this.id);
  }
}

/**
 * Every waiting ask of the process, checked by one timer for all of them (a timer per ask cost an
 * allocation and two list operations on every request). An ask times out within
 * {@link SWEEP_MS} after its deadline. The timer stops at a sweep that finds no ask waiting, not
 * when the last reply arrives: requests one after another would otherwise start and stop it each time.
 */
const waitingAsks = new Set<ReplySlot>();
const SWEEP_MS = 25;
let sweeper: NodeJS.Timeout | undefined;

function sweep(): void {
  if (waitingAsks.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
    return;
  }
  const now = Date.now();
  for (const slot of waitingAsks) if (slot.deadline <= now) slot.reject(new AskTimeoutError(slot.timeoutMs));
}

const mailboxLimits = new WeakMap<RawActor, number>();

/**
 * Bounds how many messages may wait in the actor's mailbox before {@link ../messaging/ask.ts}
 * refuses new requests to it (Akka's bounded mailbox, for asks only: replies and an actor's own
 * completions are never dropped). Keyed by the live actor, so a respawned actor starts unbounded.
 */
export function limitMailbox(ref: AnyRef, limit: number): void {
  const actor = concrete(ref);
  if (actor && isActor(actor)) mailboxLimits.set(actor, limit);
}
