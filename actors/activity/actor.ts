import { newId, type ObjectIdString } from '../../src/ids.ts';
import { spawnAsync, stop, tell, type AnyRef, type CrashPolicy, type Ctx, type Ref } from '../../src/messaging/nact.ts';
import { mailboxSize } from '../../src/messaging/introspection.ts';
import { fail, ok } from '../../src/messaging/reply.ts';
import { refuseUnknown } from '../../src/messaging/supervision.ts';
import type { ActivityRecord, ActivityStore } from '../../src/stores/activity-store.ts';
import { examples, type Activity, type RouterCommand } from './protocol.ts';

export interface ActivityActorDeps {
  readonly store: ActivityStore;
  /** Stop after this many idle milliseconds; the next message spawns the actor again. */
  readonly idleMs: number;
  /** A new crash policy for each actor spawned (the router and each child), so each has its own restart budget. */
  readonly onCrash: () => CrashPolicy;
  /**
   * The most of the user's newest activities the actor keeps in memory (default 50): it keeps the
   * newest page it last read (one more than asked, to know whether more exist), up to this many.
   */
  readonly cacheSize?: number;
  /** The most ActivityActors alive at once (`actors.activity.max-live`); the router stops the least recently used. */
  readonly maxLive?: number;
  readonly now?: () => number;
}

/**
 * A cache of the user's newest activities, newest first, as many as the last read of the newest
 * page asked for (plus one); `complete` when it holds all of them.
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

  /** Answers a limit from the cache when it holds that many and one more, or all there are. */
  const answers = (cache: Cache | undefined, limit: number): cache is Cache =>
    cache !== undefined && (cache.complete || cache.recent.length > limit);

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
      tell(msg.sender, fail('user.not_found', `No user with id ${userId}`));
      return stopIfIdle(ctx);
    }
    tell(msg.sender, ok(view(saved)));
    // Not prepended to the cache: another process may have appended just before, and the cache's
    // newest seq would then hide that row from the check in `current`. The next History loads.
    return undefined;
  };

  /**
   * The cache if the store has nothing newer (another process may have appended, or deleted the
   * user) and it was settled (an append seen out of order may have filled a gap since).
   */
  const current = async (cache: Cache | undefined): Promise<Cache | undefined> =>
    cache?.settled && (await deps.store.latestSeq(userId)) === cache.recent[0]?.seq ? cache : undefined;

  /**
   * The newest page comes from the cache when it can answer it whole, else from the store (one
   * more than asked), and that read becomes the cache; older pages come from the store alone.
   */
  const onHistory = async (stale: State, msg: Extract<Msg, { type: 'History' }>): Promise<State> => {
    if (msg.before !== undefined) {
      const page = await deps.store.page(userId, { limit: msg.limit, beforeSeq: msg.before });
      reply(msg, page.items, page.hasMore);
      return stale;
    }
    const fresh = await current(stale);
    if (answers(fresh, msg.limit)) {
      reply(msg, fresh.recent.slice(0, msg.limit), !fresh.complete || fresh.recent.length > msg.limit);
      return fresh;
    }
    const page = await deps.store.page(userId, { limit: msg.limit + 1 });
    reply(msg, page.items.slice(0, msg.limit), page.hasMore || page.items.length > msg.limit);
    // A page the store did not call settled may miss an append still landing: it is never kept.
    if (!page.settled) return undefined;
    const recent = page.items.slice(0, size);
    return { recent, complete: !page.hasMore && recent.length === page.items.length, settled: true };
  };

  const reply = (msg: Extract<Msg, { type: 'History' }>, items: readonly ActivityRecord[], hasMore: boolean): void => {
    const last = items.at(-1);
    tell(msg.sender, ok({ activities: items.map(view), next: hasMore && last ? last.seq : null }));
  };

  /** The user is gone (its rows went with it): drop the cache, and stop unless more work is queued. */
  const onForget = (msg: Extract<Msg, { type: 'Forget' }>, ctx: Ctx<Msg>): State => {
    tell(msg.sender, ok(null));
    return stopIfIdle(ctx);
  };

  return spawnAsync<State, Msg>(
    parent,
    async (state, msg, ctx) => {
      switch (msg.type) {
        case 'Record':
          return onRecord(msg, ctx);
        case 'History':
          return onHistory(state, msg);
        case 'Forget':
          return onForget(msg, ctx);
        default:
          refuseUnknown(msg, 'ActivityActor', Object.keys(examples));
          return state;
      }
    },
    { name: userId, initialState: () => undefined, shutdownAfterMs: deps.idleMs, onCrash: deps.onCrash() },
  );
}
