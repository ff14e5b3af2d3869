import { newId, type ObjectIdString } from '../../src/ids.ts';
import {
  mailboxSize,
  spawn,
  stop,
  tell,
  type AnyRef,
  type CrashPolicy,
  type Ctx,
  type Ref,
} from '../../src/messaging/nact.ts';
import { fail, ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import type { ActivityRecord, ActivityStore } from '../../src/stores/activity-store.ts';
import { examples, type Activity, type RouterCommand } from './protocol.ts';

export interface ActivityActorDeps {
  readonly store: ActivityStore;
  /** Stop after this many idle milliseconds; the next message spawns the actor again. */
  readonly idleMs: number;
  /** One policy per actor, so each has its own restart budget. */
  readonly crashPolicy: () => CrashPolicy;
  /** How many of the newest activities the actor keeps in memory (default 50). */
  readonly cacheSize?: number;
  readonly now?: () => number;
}

/**
 * A cache of the user's newest activities, newest first; `complete` when it holds all of them.
 * The store is the truth, and other processes (the server's other workers, another instance, the
 * REPL) append to the same history: before the cache answers, the store's newest `seq` for the
 * user is compared with the cache's, and a cache that is behind is loaded again. A Record drops
 * the cache; the next History loads it.
 */
interface Cache {
  readonly recent: readonly ActivityRecord[];
  readonly complete: boolean;
  /** False when the store said an append may still appear among these: loaded again before use. */
  readonly settled: boolean;
}

type State = Cache | undefined;
type Msg = RouterCommand;

const DEFAULT_CACHE_SIZE = 50;

const view = ({ seq: _, ...activity }: ActivityRecord): Activity => activity;

/** Spawns the ActivityActor of one user under `parent` (the router); its name is the user id. */
export function spawnActivityActor(parent: AnyRef, userId: ObjectIdString, deps: ActivityActorDeps): Ref<Msg> {
  const size = deps.cacheSize ?? DEFAULT_CACHE_SIZE;
  const now = deps.now ?? Date.now;

  const load = async (): Promise<Cache> => {
    const page = await deps.store.page(userId, { limit: size });
    return { recent: page.items, complete: !page.hasMore, settled: page.settled };
  };

  /** Stops the actor unless more work is queued for it (the next message then spawns it again). */
  const stopIfIdle = (ctx: Ctx<Msg>): undefined => {
    if (mailboxSize(ctx.self) === 0) stop(ctx.self);
    return undefined;
  };

  /** A Record for an id with no user stops the actor at once: unknown ids never pile up actors. */
  const onRecord = async (msg: Extract<Msg, { type: 'Record' }>, ctx: Ctx<Msg>): Promise<State> => {
    const saved = await deps.store.append({
      id: newId(),
      userId,
      type: msg.activityType,
      detail: msg.detail,
      at: new Date(now()).toISOString(),
    });
    if (!saved) {
      tell(msg.sender, fail('activity.user_not_found', `No user with id ${userId}`));
      return stopIfIdle(ctx);
    }
    tell(msg.sender, ok(view(saved)));
    // Not prepended to the cache: another process may have appended just before, and the cache's
    // newest seq would then hide that row from the check in `current`. The next History loads.
    return undefined;
  };

  /**
   * The cache as the store has it now: reloaded when another process appended (or deleted the
   * user), and when it was not settled (an append seen out of order may have filled a gap since).
   */
  const current = async (cache: Cache): Promise<Cache> =>
    cache.settled && (await deps.store.latestSeq(userId)) === cache.recent[0]?.seq ? cache : load();

  /** The newest page comes from the cache when it can answer it whole; older pages from the store. */
  const onHistory = async (stale: Cache, msg: Extract<Msg, { type: 'History' }>): Promise<Cache> => {
    const cache = msg.before === undefined ? await current(stale) : stale;
    const cached = msg.before === undefined && (cache.complete || cache.recent.length > msg.limit);
    const page = cached
      ? { items: cache.recent.slice(0, msg.limit), hasMore: cache.recent.length > msg.limit }
      : await deps.store.page(userId, { limit: msg.limit, beforeSeq: msg.before });
    const last = page.items.at(-1);
    tell(msg.sender, ok({ activities: page.items.map(view), next: page.hasMore && last ? last.seq : null }));
    return cache;
  };

  /** The user is gone (its rows went with it): drop the cache, and stop unless more work is queued. */
  const onForget = (msg: Extract<Msg, { type: 'Forget' }>, ctx: Ctx<Msg>): State => {
    tell(msg.sender, ok(null));
    return stopIfIdle(ctx);
  };

  return spawn<State, Msg>(
    parent,
    async (state, msg, ctx) => {
      switch (msg.type) {
        case 'Record':
          return onRecord(msg, ctx);
        case 'History':
          return onHistory(state ?? (await load()), msg);
        case 'Forget':
          return onForget(msg, ctx);
        default:
          refuseUnknown(msg, 'ActivityActor', Object.keys(examples));
          return state;
      }
    },
    { name: userId, initialState: () => undefined, shutdownAfterMs: deps.idleMs, onCrash: deps.crashPolicy() },
  );
}
