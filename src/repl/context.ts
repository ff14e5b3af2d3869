/**
 * The globals of a REPL session: the actor refs by name, `ask` and `tell`, and the protocols'
 * message builders.
 */
import type { Actors } from '../composition/actors.ts';
import { ActorUnavailableError, AskTimeoutError, ask as askActor, type Request } from '../messaging/ask.ts';
import { sameActor } from '../messaging/introspection.ts';
import { spawn, tell as tellActor, type AnyRef, type Ref } from '../messaging/nact.ts';
import { positionsOf, withNextCursor } from './cursors.ts';
import { checkMessage, type Checked } from './messages.ts';
import { buildersOf, PROTOCOLS, shortBuilders, userBuilders, type RefName } from './protocols.ts';

/** How long `ask` waits when no timeout is given, in milliseconds. */
export const DEFAULT_ASK_TIMEOUT_MS = 5000;

/** Where the session writes what is not an expression's value. */
export interface ReplIo {
  /** One line of text. */
  say(line: string): void;
  /** A value that arrived on its own (a reply to `tell`). */
  show(label: string, value: unknown): void;
}

type Refs = Readonly<Record<RefName, AnyRef | undefined>>;

const isRef = (value: unknown): value is AnyRef =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/**
 * A mistake in calling `ask` or `tell`: its printout is its one line, as the frames would only
 * point into the REPL's own code.
 */
function usageError(message: string): TypeError {
  const error = new TypeError(message);
  error.stack = `${error.name}: ${message}`;
  return error;
}

/** A builder (`Get({ id })`), or a message literal without its `sender`, which is then filled in. */
function asRequest(msg: unknown, fn: string): Request<unknown, unknown> {
  if (typeof msg === 'function') return msg as Request<unknown, unknown>;
  if (typeof msg === 'object' && msg !== null) return (sender) => ({ ...msg, sender });
  throw usageError(`${fn}(ref, msg): msg must be a message such as Get({ id }) or User.post({ name, email })`);
}

function checkRef(ref: unknown, fn: string, refs: Refs): asserts ref is AnyRef {
  if (isRef(ref)) return;
  const off =
    ref === undefined && refs.employees === undefined ? ' (employees is undefined: the employee service is off)' : '';
  throw usageError(`${fn}(ref, msg): ref must be an actor: ${Object.keys(refs).join(', ')}${off}`);
}

/** Which of the session's actors the ref reaches, however it is spelled (a copy, a hand-built ref). */
const nameIn = (refs: Refs, ref: AnyRef): RefName | undefined =>
  (Object.keys(refs) as RefName[]).find((name) => {
    const known = refs[name];
    return known !== undefined && sameActor(known, ref);
  });

/**
 * The message checked against the public protocol of the actor the ref reaches. A ref that
 * reaches none of the session's actors (a child, the REPL's own inbox, a made-up path) takes nothing.
 */
function checked(refs: Refs, ref: AnyRef, msg: unknown, fn: string): Checked {
  const built = asRequest(msg, fn);
  const request: Request<unknown, unknown> = (sender) => positionsOf(built(sender));
  const entry = PROTOCOLS.find((p) => p.ref === nameIn(refs, ref));
  if (entry) return checkMessage(entry, request);
  const names = (Object.keys(refs) as RefName[]).filter((name) => refs[name] !== undefined);
  return { ok: false, line: `not sent: the ref reaches none of ${names.join(', ')}` };
}

let sessionAsks = 0;

/** The asks the session's `ask` has sent that still wait for their reply (`.exit` does not wait for them). */
export const pendingSessionAsks = (): number => sessionAsks;

function askFor(refs: Refs, io: ReplIo) {
  const nameOf = (ref: AnyRef): string => nameIn(refs, ref) ?? 'the actor';
  const send = async (ref: AnyRef, request: Request<unknown, unknown>, timeoutMs: number): Promise<unknown> => {
    sessionAsks++;
    try {
      return withNextCursor(await askActor(ref as Ref<unknown>, request, timeoutMs));
    } catch (error) {
      if (error instanceof AskTimeoutError) io.say(`no reply from ${nameOf(ref)} within ${timeoutMs} ms`);
      else if (error instanceof ActorUnavailableError) io.say(`${nameOf(ref)} is stopped`);
      else throw error;
      return undefined;
    } finally {
      sessionAsks--;
    }
  };
  /**
   * Sends the message with a fresh `sender` and resolves with the reply; a silent or stopped actor
   * prints one line. A message its actor's protocol refuses is not sent: one line says why.
   */
  return function ask(
    ref: unknown,
    msg: unknown,
    timeoutMs: number = DEFAULT_ASK_TIMEOUT_MS,
  ): Promise<unknown> | undefined {
    checkRef(ref, 'ask', refs);
    const message = checked(refs, ref, msg, 'ask');
    if (message.ok) return send(ref, message.request, timeoutMs);
    io.say(message.line);
    return undefined;
  };
}

/** `tell`'s replies go to one small actor, spawned on first use, that prints them as they come. */
function tellFor(actors: Actors, refs: Refs, io: ReplIo) {
  let inbox: Ref<unknown> | undefined;
  const inboxRef = (): Ref<unknown> =>
    (inbox ??= spawn<null, unknown>(
      actors.system,
      (state, reply) => {
        io.show('reply to tell:', withNextCursor(reply));
        return state;
      },
      { name: 'repl-inbox', initialState: () => null },
    ));
  /** Sends the message and returns at once; the reply is printed when it arrives. A refused message is not sent, as with `ask`. */
  return function tell(ref: unknown, msg: unknown): void {
    checkRef(ref, 'tell', refs);
    const message = checked(refs, ref, msg, 'tell');
    if (message.ok) tellActor(ref as Ref<unknown>, message.request(inboxRef()));
    else io.say(message.line);
  };
}

/** Every global of the session, by name. */
export function replGlobals(actors: Actors, io: ReplIo): Record<string, unknown> {
  const refs: Refs = {
    token: actors.token,
    accounts: actors.accounts,
    employees: actors.employees,
    users: actors.users,
    activity: actors.activity,
  };
  const namespaces = Object.fromEntries(PROTOCOLS.map((p) => [p.namespace, buildersOf(p)]));
  return {
    ...refs,
    ...namespaces,
    ...userBuilders,
    ...Object.fromEntries(shortBuilders()),
    ask: askFor(refs, io),
    tell: tellFor(actors, refs, io),
  };
}
