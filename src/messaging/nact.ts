/**
 * The only importer of `nact`: its untyped run time described once, and the typed core
 * (spawn, tell, stop). nact ships partial, loosely typed declarations and two stop bugs (stopping an
 * actor leaves its children running; stopping the system stops no actor), so the rest of the code
 * speaks to actors through the typed functions here and beside it: `reply-slots.ts` (asks and
 * mailbox bounds) over `reply-table.ts` (the asks waiting for a reply), `introspection.ts` (the
 * live tree), `observers.ts` (per-message hooks); its changes to nact's behaviour are in
 * `nact-patches.ts`. The raw shapes exported here are for those
 * modules only (lint keeps them in src/messaging/).
 */
import { createRequire } from 'node:module';
import nact from 'nact';
import { ActorUnavailableError } from './errors.ts';
import { handleSealed, seal, unseal } from './envelope.ts';
import { tracingEnabled } from '../telemetry/tracing.ts';
import { forgetObserver, observerOf } from './observers.ts';
import { rejectWaiting, waitingAsk } from './reply-table.ts';
import { applyPatches, MESSAGES_PER_TURN, type RawMailboxActor } from './nact-patches.ts';
import type { ActorSystem, AnyRef, Ref } from './refs.ts';
import type {
  RawActor,
  RawCtx,
  RawNact,
  RawProps,
  RawRef,
  RawSupervisionCtx,
  RawSystem,
  RawSystemMap,
} from './nact-raw.ts';

export type { RawActor, RawPath, RawRef, RawSystem } from './nact-raw.ts';
export type { ActorSystem, AnyRef, Ref } from './refs.ts';

export { MESSAGES_PER_TURN };

// Every patch, unless the bench chose fewer before this module loaded (test/bench/nact-patches.ts).
applyPatches();

/** What an actor's handler sees besides its state and message. */
export interface Ctx<M> {
  readonly self: Ref<M>;
  readonly name: string;
  /** Path such as `troupe://activity/42`. */
  readonly path: string;
  /** The live child of that name, in O(1). */
  child(name: string): AnyRef | undefined;
}

/**
 * What becomes of an actor whose handler threw: `resume` keeps its state and goes on with its
 * mailbox; `stop` stops it with its children, the asks queued at it rejected at once; `escalate`
 * stops it so, and hands the failure to its parent: a top-level actor's to the handler given to
 * {@link startSystem} (the composition root spawns it again, with all its closures new), a child's
 * parent finds it gone (the activity router spawns it again on the next message for it). nact's own
 * `reset` is not offered: it renews the nact state alone, never what a spawn function keeps in
 * closures, so a fresh start is a new spawn.
 */
export type Decision = 'resume' | 'stop' | 'escalate';

/** Decides what happens to an actor whose handler threw while handling `message`. */
export type CrashPolicy = (message: unknown, error: unknown, path: string) => Decision;

/** A handler that answers at once with the next state: the messages queued behind it follow in the same turn. */
export type Handler<S, M> = (state: S, message: M, ctx: Ctx<M>) => S;
/** A handler that awaits: the promise of the next state; the next message waits for it to settle. */
export type AsyncHandler<S, M> = (state: S, message: M, ctx: Ctx<M>) => Promise<S>;

export interface SpawnOptions<S, M> {
  readonly name?: string;
  readonly initialState: (ctx: Ctx<M>) => S;
  /** Stop the actor after this many idle milliseconds (it can be spawned again later). */
  readonly shutdownAfterMs?: number;
  readonly onCrash?: CrashPolicy;
  readonly afterStop?: (state: S, ctx: Ctx<M>) => void;
  /**
   * Messages handled in one turn of the event loop before the actor yields one (default
   * {@link MESSAGES_PER_TURN}); 1 is nact's own pace, a turn per message.
   */
  readonly messagesPerTurn?: number;
}

const runtime = nact as unknown as RawNact;
const systemMap = createRequire(import.meta.url)('nact/lib/system-map.js') as RawSystemMap;

export const raw = (ref: AnyRef): RawRef => ref as RawRef;
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

// ---- the typed API ------------------------------------------------------------------------------

/** A top-level actor escalated a failure (it is stopped already): the system's supervisor decides. */
export type Escalated = (name: string, error: unknown) => void;

const escalations = new Map<string, Escalated>();

/**
 * Starts an actor system. Stop it with {@link stopSystem}. `onEscalated` decides for a top-level
 * actor that escalated a failure; without it, the actor stays stopped.
 */
export function startSystem(name: string, onEscalated?: Escalated): ActorSystem {
  const system = runtime.start({ name }) as unknown as ActorSystem;
  if (onEscalated) escalations.set(name, onEscalated);
  return system;
}

/**
 * Applies a decision other than `resume` (nact's own): nact's `stop` would leave the
 * children running and the queued asks waiting for their timeout, so the actor is stopped here,
 * bottom-up, and nact is told to resume it, which for a stopped actor does nothing.
 */
function stopOnCrash(ctx: RawSupervisionCtx, error: unknown, escalate: boolean): symbol {
  const actor = concrete(ctx.self);
  if (actor && isActor(actor)) stopTree(actor);
  const { parent } = ctx;
  if (escalate && parent?.type === 'system') escalations.get(parent.system.name)?.(ctx.name, error);
  return ctx.resume;
}

/** Spawns an actor under `parent` (a system, or an actor's `ctx.self`). */
export function spawn<S, M>(parent: AnyRef, handler: Handler<S, M>, options: SpawnOptions<S, M>): Ref<M> {
  return spawnWith(parent, handler, options);
}

/** Spawns an actor whose handler awaits (see {@link spawn}). */
export function spawnAsync<S, M>(parent: AnyRef, handler: AsyncHandler<S, M>, options: SpawnOptions<S, M>): Ref<M> {
  return spawnWith(parent, handler, options);
}

function spawnWith<S, M>(
  parent: AnyRef,
  handler: (state: S, message: M, ctx: Ctx<M>) => unknown,
  options: SpawnOptions<S, M>,
): Ref<M> {
  const onCrash = options.onCrash ?? (() => 'stop');
  const props: RawProps = {
    initialStateFunc: (ctx) => options.initialState(wrapCtx<M>(ctx)),
    onCrash: (message, error, ctx) => {
      const decision = onCrash(unseal(message), error, ctx.path.toString());
      return decision === 'resume' ? ctx.resume : stopOnCrash(ctx, error, decision === 'escalate');
    },
    afterStop: (state, ctx) => options.afterStop?.(state as S, wrapCtx<M>(ctx)),
    ...(options.shutdownAfterMs === undefined ? {} : { shutdownAfter: options.shutdownAfterMs }),
  };
  /** The handler, observed: synchronous when the handler is, so that the mailbox loop goes on at once. */
  const run = (state: unknown, message: unknown, ctx: RawCtx): unknown => {
    const observer = observerOf(ctx.self.system.name);
    if (!observer) return handler(state as S, message as M, wrapCtx<M>(ctx));
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    let next: unknown;
    try {
      next = handler(state as S, message as M, wrapCtx<M>(ctx));
    } catch (error) {
      observer(ctx.path.parts, 'failed', seconds());
      throw error;
    }
    if (!(next instanceof Promise)) {
      observer(ctx.path.parts, 'handled', seconds());
      return next;
    }
    return next.then(
      (settled) => {
        observer(ctx.path.parts, 'handled', seconds());
        return settled;
      },
      (error: unknown) => {
        observer(ctx.path.parts, 'failed', seconds());
        throw error;
      },
    );
  };
  // While tracing is off nothing is sealed: the handler runs as it is, with no closure per message.
  const f = (state: unknown, sealed: unknown, ctx: RawCtx): unknown =>
    tracingEnabled()
      ? handleSealed(sealed, ctx.path, async (message) => run(state, message, ctx))
      : run(state, sealed, ctx);
  const ref = runtime.spawn(raw(parent), f, options.name, props);
  if (options.messagesPerTurn !== undefined) {
    const actor = concrete(ref);
    if (actor && isActor(actor)) (actor as unknown as RawMailboxActor).messagesPerTurn = options.messagesPerTurn;
  }
  return typed<M>(ref);
}

/** Sends `message` to `ref`. A stopped or unknown actor drops it silently, as in nact. */
export function tell<M>(ref: Ref<M>, message: M): void {
  const r = raw(ref as AnyRef) as RawRef & { readonly id?: unknown };
  if (r.type !== 'temp') return runtime.dispatch(r, seal(message));
  // A reply to an ask: straight to its slot (none when the ask has been answered or timed out).
  waitingAsk(r)?.resolve(message);
}

/** The live nact actor or system behind `ref` (for src/messaging only). */
export function concrete(ref: AnyRef): RawActor | RawSystem | undefined {
  const r = raw(ref);
  return systemMap.find(r.system.name, r);
}

export const isActor = (node: RawActor | RawSystem): node is RawActor => 'mailbox' in node;

/** Stops the actor after its children; the asks still queued in its mailbox are rejected at once. */
function stopTree(actor: RawActor): void {
  for (const child of [...actor.children.values()]) stopTree(child);
  for (const { sender } of actor.mailbox.toArray()) {
    if (sender?.type === 'temp') waitingAsk(sender)?.reject(new ActorUnavailableError());
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
  rejectWaiting(system.name, () => new ActorUnavailableError());
  sys.stop();
  forgetObserver(system.name);
  escalations.delete(system.name);
}
