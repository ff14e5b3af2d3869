/**
 * A user's ActivityActor that crashes: past its restart budget it escalates (it is stopped, and the
 * router spawns it again on the next message, its cache loaded again from the store), as one that
 * a policy stops is.
 * Either way the history it answers is the store's, and no caller waits for a timeout.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Activity from '../../actors/activity/protocol.ts';
import { spawnActivityRouter } from '../../actors/activity/router.ts';
import { newId, type ObjectIdString } from '../../src/ids.ts';
import { ask } from '../../src/messaging/ask.ts';
import {
  startSystem,
  stopSystem,
  tell,
  type ActorSystem,
  type CrashPolicy,
  type Ref,
} from '../../src/messaging/nact.ts';
import { actorTree } from '../../src/messaging/introspection.ts';
import { fail } from '../../src/messaging/reply.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import type { ActivityStore } from '../../src/stores/activity-store.ts';
import { sqliteActivityStore } from '../../src/stores/activity-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { sqliteUserStore } from '../../src/stores/user-store.sqlite.ts';
import { waitFor } from '../helpers/wait.ts';

interface Ctx {
  system: ActorSystem;
  db: Db;
  store: ActivityStore;
  userId: ObjectIdString;
}
const ctx = {} as Ctx;
const t = suite('reliability: ActivityActor restarts', ctx);

t.before.each(async () => {
  ctx.db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  ctx.store = sqliteActivityStore(ctx.db);
  ctx.system = startSystem(`restart-${Math.random().toString(36).slice(2)}`);
  ctx.userId = newId();
  const at = new Date().toISOString();
  assert.ok(
    (
      await sqliteUserStore(ctx.db).insert({
        id: ctx.userId,
        name: 'Ann',
        email: 'ann@example.com',
        createdAt: at,
        updatedAt: at,
      })
    ).ok,
  );
});
t.after.each(() => {
  stopSystem(ctx.system);
  ctx.db.close();
});

/** Loads of a history page from the store, counted by {@link faulty}. */
const loads = { n: 0 };

/** The store, except that appending a `BOOM` throws; page loads are counted. */
const faulty = (): ActivityStore => ({
  ...ctx.store,
  append: (a) => {
    if (a.type === 'BOOM') throw new Error('disk on fire');
    return ctx.store.append(a);
  },
  page: (userId, options) => {
    loads.n++;
    return ctx.store.page(userId, options);
  },
});

const router = (onCrash: () => CrashPolicy): Ref<Activity.RouterCommand> =>
  spawnActivityRouter(ctx.system, { store: faulty(), idleMs: 60_000, onCrash });

const record = (ref: Ref<Activity.RouterCommand>, type: string) =>
  ask(ref, Activity.record({ userId: ctx.userId, type }), 2000);

async function types(ref: Ref<Activity.RouterCommand>): Promise<string[]> {
  const reply = await ask(ref, Activity.history({ userId: ctx.userId, limit: 50, before: undefined }), 2000);
  if (!reply.ok) throw new Error(reply.code);
  return reply.value.activities.map((a) => a.type);
}

/** Appended behind the actor's back, as another process would. */
const sneak = async (): Promise<void> => {
  await ctx.store.append({
    id: newId(),
    userId: ctx.userId,
    type: 'SNUCK_IN',
    detail: {},
    at: new Date().toISOString(),
  });
};

t('past the restart budget the child escalates: stopped, spawned again, its cache loaded from the store', async () => {
  const ref = router(() => replyThenResume(() => {}, { maxCrashes: 1, withinMs: 60_000 }));
  assert.ok((await record(ref, 'FIRST')).ok);
  assert.equal(await types(ref), ['FIRST']);
  const loaded = loads.n;
  assert.equal(await types(ref), ['FIRST'], 'the cache answers');
  assert.is(loads.n, loaded);
  assert.equal(await record(ref, 'BOOM'), fail('internal', 'internal error: disk on fire'));
  assert.equal(await types(ref), ['FIRST'], 'resumed: the cache is kept');
  assert.is(loads.n, loaded, 'resumed: no load');
  assert.equal(await record(ref, 'BOOM'), fail('internal', 'internal error: disk on fire'));
  assert.equal(await types(ref), ['FIRST'], 'spawned again: loaded from the store');
  assert.is(loads.n, loaded + 1, 'spawned again: the cache was dropped');
  assert.ok((await record(ref, 'LAST')).ok);
  assert.equal(await types(ref), ['LAST', 'FIRST']);
});

t(
  'an activity appended by another process is in the next history at once (the cache is checked against the store)',
  async () => {
    const ref = router(() => replyThenResume(() => {}));
    assert.ok((await record(ref, 'FIRST')).ok);
    assert.equal(await types(ref), ['FIRST']);
    await sneak();
    assert.equal(await types(ref), ['SNUCK_IN', 'FIRST']);
    assert.ok((await record(ref, 'MINE')).ok);
    await sneak();
    assert.equal(await types(ref), ['SNUCK_IN', 'MINE', 'SNUCK_IN', 'FIRST']);
    const loaded = loads.n;
    assert.equal(await types(ref), ['SNUCK_IN', 'MINE', 'SNUCK_IN', 'FIRST']);
    assert.is(loads.n, loaded, 'an unchanged history is answered from the cache');
  },
);

t('a child that is stopped on a crash is spawned again by the router on the next message', async () => {
  const stopOnCrash = (): CrashPolicy => (message) => {
    const sender = (message as { sender?: Ref<Activity.RecordReply> }).sender;
    if (sender) tell(sender, fail('internal', 'internal error'));
    return 'stop';
  };
  const ref = router(stopOnCrash);
  assert.ok((await record(ref, 'FIRST')).ok);
  assert.equal(
    actorTree(ref).map((a) => a.name),
    [ctx.userId],
  );
  assert.equal(await record(ref, 'BOOM'), fail('internal', 'internal error'));
  await waitFor(() => actorTree(ref).length === 0, 'the stop');
  await sneak();
  assert.ok((await record(ref, 'AFTER')).ok);
  assert.equal(
    actorTree(ref).map((a) => a.name),
    [ctx.userId],
  );
  assert.equal(await types(ref), ['AFTER', 'SNUCK_IN', 'FIRST']);
});

t.run();
