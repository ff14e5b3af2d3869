/**
 * The only importer of `nact`. nact ships partial, loosely typed declarations and two stop bugs
 * (stopping an actor leaves its children running; stopping the system stops no actor), so the rest
 * of the code speaks to actors through the typed functions here.
 */
import { createRequire } from 'node:module';
import nact from 'nact';
import { ActorUnavailableError, AskTimeoutError, MailboxFullError } from './errors.ts';

declare const protocol: unique symbol;

/** A reference to an actor (or reply slot) that accepts messages of type `M`. */
export interface Ref<M> {
  readonly type: 'actor' | 'temp' | 'system' | 'nobody';
  /** Phantom: makes `Ref<M>` contravariant in `M`, never present at run time. */
  readonly [protocol]?: (message: M) => void;
}

/** Any reference, whatever it accepts (refs are contravariant, so this is the widest one). */
export type AnyRef = Ref<never>;

/** The root of an actor tree; top-level actors are spawned under it. */
export interface ActorSystem extends Ref<never> {
  readonly type: 'system';
  readonly name: string;
}

/** What an actor's handler sees besides its state and message. */
export interface Ctx<M> {
  readonly self: Ref<M>;
  readonly name: string;
  /** Path such as `troupe://activity/42`. */
  readonly path: string;
  /** The live child of that name, in O(1). */
  child(name: string): AnyRef | undefined;
}

export type Decision = 'resume' | 'reset' | 'stop';

/** Decides what happens to an actor whose handler threw while handling `message`. */
export type CrashPolicy = (message: unknown, error: unknown, path: string) => Decision;

export type Handler<S, M> = (state: S, message: M, ctx: Ctx<M>) => S | Promise<S>;

export interface SpawnOptions<S, M> {
  readonly name?: string;
  readonly initialState: (ctx: Ctx<M>) => S;
  /** Stop the actor after this many idle milliseconds (it can be spawned again later). */
  readonly shutdownAfterMs?: number;
  readonly onCrash?: CrashPolicy;
  readonly afterStop?: (state: S, ctx: Ctx<M>) => void;
}

/** A node of the live actor tree, for introspection (REPL, metrics). */
export interface ActorInfo {
  readonly name: string;
  readonly path: string;
  readonly mailbox: number;
  readonly children: readonly ActorInfo[];
}

// ---- the untyped run time, described once ------------------------------------------------------

interface RawPath {
  readonly parts: readonly string[];
  toString(): string;
}
interface RawRef extends AnyRef {
  readonly system: { readonly name: string };
  readonly path: RawPath;
  readonly name?: string;
}
interface RawCtx {
  readonly self: RawRef;
  readonly name: string;
  readonly path: RawPath;
  readonly children: Map<string, RawRef>;
}
type RawSupervisionCtx = RawCtx & Record<'resume' | 'reset' | 'stop', symbol>;
interface RawProps {
  initialStateFunc: (ctx: RawCtx) => unknown;
  shutdownAfter?: number;
  onCrash: (message: unknown, error: unknown, ctx: RawSupervisionCtx) => symbol;
  afterStop: (state: unknown, ctx: RawCtx) => void;
}
interface RawNact {
  start(options: { name: string }): RawRef;
  spawn(
    parent: RawRef,
    f: (state: unknown, message: unknown, ctx: RawCtx) => unknown,
    name: string | undefined,
    props: RawProps,
  ): RawRef;
  dispatch(ref: RawRef, message: unknown): void;
}
interface RawActor {
  readonly name: string;
  readonly reference: RawRef;
  readonly path: RawPath;
  readonly children: Map<string, RawActor>;
  readonly mailbox: {
    readonly length: number;
    toArray(): readonly { readonly sender?: { readonly type?: string; readonly id?: unknown } }[];
  };
  dispatch(message: unknown, sender: unknown): void;
  stop(): void;
}
/** A pending ask, under its reply slot's id; nact's `find` resolves it with the first reply. */
interface RawReplySlot {
  resolve(reply: unknown): void;
  reject(error: Error): void;
}
interface RawSystem {
  readonly name: string;
  readonly children: Map<string, RawActor>;
  readonly tempReferences: Map<unknown, RawReplySlot>;
  stop(): void;
}
interface RawSystemMap {
  find(systemName: string, ref?: RawRef): RawActor | RawSystem | undefined;
}

const runtime = nact as unknown as RawNact;
const systemMap = createRequire(import.meta.url)('nact/lib/system-map.js') as RawSystemMap;

const raw = (ref: AnyRef): RawRef => ref as RawRef;
const typed = <M>(ref: RawRef): Ref<M> => ref as Ref<M>;

/** One context per actor (keyed by its reference, which nact keeps for the actor's life): none per message. */
const contexts = new WeakMap<RawRef, Ctx<unknown>>();

function wrapCtx<M>(ctx: RawCtx): Ctx<M> {
  const known = contexts.get(ctx.self) as Ctx<M> | undefined;
  if (known) return known;
  const wrapped = newCtx<M>(ctx);
  contexts.set(ctx.self, wrapped as Ctx<unknown>);
  return wrapped;
}

function newCtx<M>(ctx: RawCtx): Ctx<M> {
  return {
    self: typed<M>(ctx.self),
    name: ctx.name,
    get path() {
      return ctx.path.toString();
    },
    child(name) {
      const actor = concrete(ctx.self);
      return actor && isActor(actor) ? actor.children.get(name)?.reference : undefined;
    },
  };
}

interface RawActorInternals {
  readonly parent?: { readonly reference: RawRef };
  readonly path: RawPath;
  readonly reference: RawRef;
  readonly name: string;
  readonly childReferences: Map<string, RawRef>;
  readonly log: unknown;
}
const actorClass = createRequire(import.meta.url)('nact/lib/actor.js') as {
  Actor: { prototype: { createContext(sender: unknown): unknown } };
};
// nact copies the parent's whole child map into the context of every message it handles, which
// makes each message to a parent of many children (the activity router) cost O(children). The
// copy is made only when `children` is read instead; everything else is as nact builds it.
actorClass.Actor.prototype.createContext = function createContext(this: RawActorInternals, sender: unknown) {
  return lazyContext(this, sender);
};

function lazyContext(actor: RawActorInternals, sender: unknown) {
  return {
    parent: actor.parent?.reference,
    path: actor.path,
    self: actor.reference,
    name: actor.name,
    get children() {
      return new Map(actor.childReferences);
    },
    sender,
    log: actor.log,
  };
}

// ---- the typed API ------------------------------------------------------------------------------

/** Starts an actor system. Stop it with {@link stopSystem}. */
export function startSystem(name: string): ActorSystem {
  return runtime.start({ name }) as unknown as ActorSystem;
}

/** Spawns an actor under `parent` (a system, or an actor's `ctx.self`). */
export function spawn<S, M>(parent: AnyRef, handler: Handler<S, M>, options: SpawnOptions<S, M>): Ref<M> {
  const onCrash = options.onCrash ?? (() => 'stop');
  const props: RawProps = {
    initialStateFunc: (ctx) => options.initialState(wrapCtx<M>(ctx)),
    onCrash: (message, error, ctx) => ctx[onCrash(message, error, ctx.path.toString())],
    afterStop: (state, ctx) => options.afterStop?.(state as S, wrapCtx<M>(ctx)),
    ...(options.shutdownAfterMs === undefined ? {} : { shutdownAfter: options.shutdownAfterMs }),
  };
  const f = async (state: unknown, message: unknown, ctx: RawCtx): Promise<unknown> => {
    const observer = observers.get(ctx.self.system.name);
    try {
      const next = await handler(state as S, message as M, wrapCtx<M>(ctx));
      observer?.(ctx.path.parts, 'handled');
      return next;
    } catch (error) {
      observer?.(ctx.path.parts, 'failed');
      throw error;
    }
  };
  return typed<M>(runtime.spawn(raw(parent), f, options.name, props));
}

/** Told of every message an actor of the system finished handling, by actor path parts. */
export type MessageObserver = (path: readonly string[], outcome: 'handled' | 'failed') => void;

const observers = new Map<string, MessageObserver>();

/** Observes every actor of `system` (one observer per system; metrics use it). */
export function observe(system: ActorSystem, observer: MessageObserver | undefined): void {
  if (observer) observers.set(system.name, observer);
  else observers.delete(system.name);
}

/** Sends `message` to `ref`. A stopped or unknown actor drops it silently, as in nact. */
export function tell<M>(ref: Ref<M>, message: M): void {
  const r = raw(ref as AnyRef) as RawRef & { readonly id?: unknown };
  if (r.type !== 'temp') return runtime.dispatch(r, message);
  // A reply to an ask: straight to its slot in the system's table, as nact's dispatch would find it.
  (systemMap.find(r.system.name) as RawSystem | undefined)?.tempReferences.get(r.id)?.resolve(message);
}

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
  const system = systemMap.find(raw(ref).system.name) as RawSystem | undefined;
  const actor = system && (system as unknown as { find(ref: RawRef): RawActor | RawSystem | undefined }).find(raw(ref));
  if (!system || !actor || !isActor(actor)) return Promise.reject(new ActorUnavailableError());
  const limit = options.bounded ? mailboxLimits.get(actor) : undefined;
  if (limit !== undefined && actor.mailbox.length >= limit) return Promise.reject(new MailboxFullError(limit));
  const id = `ask-${++lastReplySlot}`;
  const sender = { type: 'temp', id, system: { name: system.name } };
  const message = build(sender as unknown as Ref<R>);
  return new Promise<R>((resolve, reject) => {
    const waiting: Waiting = {
      deadline: Date.now() + Math.min(timeoutMs, MAX_TIMEOUT_MS),
      timeoutMs,
      reject: (error) => slot.reject(error),
    };
    const settled = (): void => {
      unwatch(waiting);
      system.tempReferences.delete(id);
    };
    const slot: RawReplySlot = {
      resolve: (reply) => {
        settled();
        resolve(reply as R);
      },
      reject: (error) => {
        settled();
        reject(error);
      },
    };
    system.tempReferences.set(id, slot);
    watch(waiting);
    actor.dispatch(message, sender);
  });
}

/** An ask waiting for its reply, until its deadline (epoch ms). */
interface Waiting {
  readonly deadline: number;
  readonly timeoutMs: number;
  reject(error: Error): void;
}

/**
 * Every waiting ask of the process, checked by one timer for all of them (a timer per ask cost an
 * allocation and two list operations on every request). An ask times out within
 * {@link SWEEP_MS} after its deadline; the timer runs only while asks wait.
 */
const waitingAsks = new Set<Waiting>();
const SWEEP_MS = 25;
let sweeper: NodeJS.Timeout | undefined;

function watch(waiting: Waiting): void {
  waitingAsks.add(waiting);
  sweeper ??= setInterval(sweep, SWEEP_MS); // ref'd, as a timer per ask was: a waiting ask keeps the process alive
}

function unwatch(waiting: Waiting): void {
  waitingAsks.delete(waiting);
  if (waitingAsks.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

function sweep(): void {
  const now = Date.now();
  for (const waiting of waitingAsks)
    if (waiting.deadline <= now) waiting.reject(new AskTimeoutError(waiting.timeoutMs));
}

function concrete(ref: AnyRef): RawActor | RawSystem | undefined {
  const r = raw(ref);
  return systemMap.find(r.system.name, r);
}

const isActor = (node: RawActor | RawSystem): node is RawActor => 'mailbox' in node;

/** Stops the actor after its children; the asks still queued in its mailbox are rejected at once. */
function stopTree(actor: RawActor): void {
  for (const child of [...actor.children.values()]) stopTree(child);
  const system = systemMap.find(actor.reference.system.name) as RawSystem | undefined;
  for (const { sender } of actor.mailbox.toArray()) {
    if (sender?.type === 'temp') system?.tempReferences.get(sender.id)?.reject(new ActorUnavailableError());
  }
  actor.stop();
}

/** Stops an actor and, bottom-up, every actor below it. */
export function stop(ref: AnyRef): void {
  const actor = concrete(ref);
  if (actor && isActor(actor)) stopTree(actor);
}

/**
 * Stops every actor of the system, bottom-up, then the system, and rejects the asks still waiting
 * for a reply: no idle or ask timer is left behind.
 */
export function stopSystem(system: ActorSystem): void {
  const sys = concrete(system);
  if (!sys || isActor(sys)) return;
  for (const actor of [...sys.children.values()]) stopTree(actor);
  for (const slot of [...sys.tempReferences.values()]) slot.reject(new ActorUnavailableError());
  sys.stop();
  observers.delete(system.name);
}

/** Whether the actor behind `ref` is alive. */
export function isAlive(ref: AnyRef): boolean {
  return concrete(ref) !== undefined;
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

/** How many messages wait in the actor's mailbox (0 for an unknown actor). */
export function mailboxSize(ref: AnyRef): number {
  const actor = concrete(ref);
  return actor && isActor(actor) ? actor.mailbox.length : 0;
}

function describe(actor: RawActor): ActorInfo {
  return {
    name: actor.name,
    path: actor.path.toString(),
    mailbox: actor.mailbox.length,
    children: [...actor.children.values()].map(describe),
  };
}

/**
 * Whether two refs name the same actor. nact resolves a ref by its system and path on every use,
 * so a copy (`{ ...ref }`) or a hand-built ref reaches the actor the original does: identity of
 * the objects says nothing, the system and path say everything.
 */
export function sameActor(a: AnyRef, b: AnyRef): boolean {
  const [x, y] = [raw(a) as Partial<RawRef>, raw(b) as Partial<RawRef>];
  const [px, py]: unknown[] = [x.path?.parts, y.path?.parts];
  return (
    (x as { type?: unknown }).type === (y as { type?: unknown }).type &&
    typeof x.system?.name === 'string' &&
    x.system.name === y.system?.name &&
    Array.isArray(px) &&
    Array.isArray(py) &&
    px.length === py.length &&
    px.every((part, i) => part === py[i])
  );
}

/** The names from the system down to the actor behind `ref`: `['activity']`, `['activity', '42']`. */
export function pathOf(ref: AnyRef): readonly string[] {
  return raw(ref).path.parts;
}

/** The live actor tree under a system or an actor. */
export function actorTree(ref: AnyRef): readonly ActorInfo[] {
  const node = concrete(ref);
  return node ? [...node.children.values()].map(describe) : [];
}

/** How many asks to the system's actors still wait for their reply. */
export function pendingAsks(system: ActorSystem): number {
  const sys = concrete(system) as RawSystem | undefined;
  return sys?.tempReferences.size ?? 0;
}
