/**
 * Every change this project makes to nact 7.6.2's behaviour, applied once when this module loads
 * (`nact.ts` imports it), each on nact's `Actor` prototype:
 * - **one context per actor**: nact builds a context for every message it handles, copying the
 *   actor's whole child map into it (a message to the activity router, a parent of a thousand
 *   children, cost ≈80 µs for that copy); the context a handler gets is built at its first message
 *   and kept (scenario 17: 1.44 times the CPU per request without it on claim 10, 1.48 on the router);
 * - **messages per turn**: the messages queued behind one are handled in the same turn of the event
 *   loop, up to {@link MESSAGES_PER_TURN}, instead of one `setImmediate` each (2.00 on claim 10).
 * `test/messaging/nact-patches.test.ts` pins each to the nact functions it replaces or calls and
 * tests what it does; `test/bench/patches.ts` measures what each buys (docs/benchmarks.md).
 *
 * `nact.ts` applies every patch ({@link applyPatches}) when it loads. Only the bench chooses fewer,
 * through `test/bench/nact-patches.ts`, which Node imports before the server's first module, so
 * that one server runs without a patch beside one that has it. One context per actor lives in the
 * mailbox loop of messages per turn, so it needs that patch too.
 */
import { createRequire } from 'node:module';

/** The nact version the patches are written against (its package.json's `version`). */
export const NACT_VERSION = '7.6.2';

export const PATCHES = ['one-context', 'messages-per-turn'] as const;
export type Patch = (typeof PATCHES)[number];

/** The patches applied in this process: none until {@link applyPatches} runs. */
export let appliedPatches: ReadonlySet<Patch> = new Set();
let chosen = false;

type Replaced = 'handleMessage' | 'processNext';
const actorClass = createRequire(import.meta.url)('nact/lib/actor.js') as {
  Actor: { prototype: Record<Replaced | 'createContext', (...args: never[]) => unknown> };
};
const prototype = actorClass.Actor.prototype;

/** nact's own functions that the patches replace or call, as nact defines them (for the tests that pin them). */
export const nactOriginals: Readonly<Record<Replaced | 'createContext', (...args: never[]) => unknown>> = Object.freeze(
  {
    createContext: prototype.createContext,
    handleMessage: prototype.handleMessage,
    processNext: prototype.processNext,
  },
);

/** The parts of nact's Actor that handle its mailbox, and the fields added here. */
export interface RawMailboxActor {
  readonly stopped: boolean;
  busy: boolean;
  immediate: NodeJS.Immediate | undefined;
  state: unknown;
  readonly f: (this: unknown, state: unknown, message: unknown, ctx: unknown) => unknown;
  readonly mailbox: { shift(): { readonly message: unknown; readonly sender: unknown } | undefined };
  createContext(sender: unknown): unknown;
  afterMessage(): void;
  setTimeout(): void;
  handleFault(message: unknown, sender: unknown, error: unknown): void;
  handleMessage(message: unknown, sender: unknown): void;
  processNext(): void;
  /** Messages handled since the actor last waited for a turn of the event loop. */
  handledInTurn?: number;
  /** `SpawnOptions.messagesPerTurn`, when the actor was given one. */
  messagesPerTurn?: number;
  /** The context its handler gets, made at its first message. */
  messageContext?: unknown;
}

/**
 * How many messages an actor handles one after another, in one turn of the event loop, before it
 * lets I/O in again. nact schedules every message in its own `setImmediate`, so a mailbox of ten
 * drained one message per turn: ten socket polls where one would do, and the replies to a burst of
 * requests written one turn apart. Here an idle actor still starts in a `setImmediate` (a tell
 * never runs the handler in the sender's stack), but the messages that queued meanwhile follow at
 * once, up to this many; then the actor yields a turn, so a long mailbox cannot starve the sockets.
 */
export const MESSAGES_PER_TURN = 64;

let oneContext = false;

/**
 * The context nact hands a handler: built once per actor (nothing of it changes per message that
 * a handler here reads: the sender travels in the message), or per message without that patch.
 */
const contextOf = (actor: RawMailboxActor, sender: unknown): unknown =>
  oneContext ? (actor.messageContext ??= actor.createContext(undefined)) : actor.createContext(sender);

/**
 * Handles `message`, then the messages queued behind it while the turn's budget lasts. A handler
 * that answers at once (its new state, no promise) is followed by the next message in the same
 * loop; one that returns a promise is followed when it settles, as nact does.
 */
function runMessages(actor: RawMailboxActor, first: unknown, firstSender: unknown): void {
  let message = first;
  let sender = firstSender;
  for (;;) {
    const ctx = contextOf(actor, sender);
    let next: unknown;
    try {
      next = actor.f.call(ctx, actor.state, message, ctx);
    } catch (error) {
      actor.handleFault(message, sender, error);
      return;
    }
    if (next instanceof Promise) {
      const failed = message;
      const failedSender = sender;
      next.then(
        (state: unknown) => {
          actor.state = state;
          actor.afterMessage();
          actor.processNext();
        },
        (error: unknown) => actor.handleFault(failed, failedSender, error),
      );
      return;
    }
    actor.state = next;
    actor.afterMessage();
    const queued = takeNext(actor);
    if (queued === undefined) return;
    message = queued.message;
    sender = queued.sender;
  }
}

/**
 * The next message to handle in this turn, if any: none when the actor has stopped, its mailbox
 * is empty (it goes idle), or the turn's budget is spent (the message waits for the next turn).
 */
function takeNext(actor: RawMailboxActor): { readonly message: unknown; readonly sender: unknown } | undefined {
  if (actor.stopped) return undefined;
  const next = actor.mailbox.shift();
  if (!next) {
    actor.busy = false;
    actor.setTimeout(); // the idle countdown (shutdownAfter) starts again
    return undefined;
  }
  const handled = (actor.handledInTurn ?? 0) + 1;
  if (handled > (actor.messagesPerTurn ?? MESSAGES_PER_TURN)) {
    actor.handleMessage(next.message, next.sender);
    return undefined;
  }
  actor.handledInTurn = handled;
  return next;
}

function patchMailboxes(): void {
  const mailboxes = prototype as unknown as RawMailboxActor;
  mailboxes.handleMessage = function handleMessage(this: RawMailboxActor, message: unknown, sender: unknown) {
    this.busy = true;
    this.handledInTurn = 1;
    this.immediate = setImmediate(() => runMessages(this, message, sender));
  };
  mailboxes.processNext = function processNext(this: RawMailboxActor) {
    const next = takeNext(this);
    if (next) runMessages(this, next.message, next.sender);
  };
}

/**
 * Applies `patches` to nact, once a process: the first call chooses. Without an argument (what
 * `nact.ts` does) every patch, unless the bench chose before; naming patches once they are
 * chosen, an unknown patch, or one context without messages per turn throws.
 */
export function applyPatches(patches?: Iterable<string>): ReadonlySet<Patch> {
  const names = patches === undefined ? undefined : [...patches];
  const unknown = (names ?? []).filter((name) => !(PATCHES as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`nact patches: ${unknown.join(', ')} unknown; the patches are ${PATCHES.join(', ')}`);
  const wanted = new Set((names ?? PATCHES) as readonly Patch[]);
  if (wanted.has('one-context') && !wanted.has('messages-per-turn'))
    throw new Error('nact patches: one-context lives in the loop of messages-per-turn; name both');
  if (chosen) {
    if (names === undefined) return appliedPatches;
    throw new Error('nact patches are applied already: choose them before src/messaging/nact.ts loads');
  }
  chosen = true;
  if (wanted.has('messages-per-turn')) patchMailboxes();
  oneContext = wanted.has('one-context');
  appliedPatches = wanted;
  return wanted;
}
