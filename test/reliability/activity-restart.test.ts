/**
 * A user's ActivityActor that crashes: past its restart budget it is reset (its cache rebuilt from
 * the store), and one that a policy stops is spawned again by the router on the next message.
 * Either way the history it answers is the store's, and no caller waits for a timeout.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Activity from '../../actors/activity/protocol.ts';
import { spawnActivityRouter } from '../../actors/activity/router.ts';
import { newId, type ObjectIdString } from '../../src/ids.ts';
import { ask } from '../../src/messaging/ask.ts';
import { actorTree, startSystem, stopSystem, tell, type ActorSystem, type CrashPolicy, type Ref } from '../../src/messaging/nact.ts';
import { fail } from '../../src/messaging/reply.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import type { ActivityStore } from '../../src/stores/activity-store.ts';
import { sqliteActivityStore } from '../../src/stores/activity-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { sqliteUserStore } from '../../src/stores/user-store.sqlite.ts';
import { waitFor } from '../helpers/wait.ts';

interface Ctx { system: ActorSystem; db: Db; store: ActivityStore; userId: ObjectIdString }
const ctx = {} as Ctx;
const t = suite('reliability: ActivityActor restarts', ctx);

t.before.each(() => {
  ctx.db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  ctx.store = sqliteActivityStore(ctx.db);
  ctx.system = startSystem(`restart-${Math.random().toString(36).slice(2)}`);
  ctx.userId = newId();
  const at = new Date().toISOString();
  assert.ok(sqliteUserStore(ctx.db).insert({ id: ctx.userId, name: 'Ann', email: 'ann@example.com', createdAt: at, updatedAt: at }).ok);
});
t.after.each(() => {
  stopSystem(ctx.system);
  ctx.db.close();
});

/** The store, except that appending a `BOOM` throws. */
const faulty = (): ActivityStore => ({
  ...ctx.store,
  append: (a) => { if (a.type === 'BOOM') throw new Error('disk on fire'); return ctx.store.append(a); },
});

const router = (crashPolicy: () => CrashPolicy): Ref<Activity.RouterCommand> =>
  spawnActivityRouter(ctx.system, { store: faulty(), idleMs: 60_000, crashPolicy });

const record = (ref: Ref<Activity.RouterCommand>, type: string) => ask(ref, Activity.record({ userId: ctx.userId, type }), 2000);

async function types(ref: Ref<Activity.RouterCommand>): Promise<string[]> {
  const reply = await ask(ref, Activity.history({ userId: ctx.userId, limit: 50, before: undefined }), 2000);
  if (!reply.ok) throw new Error(reply.code);
  return reply.value.activities.map((a) => a.type);
}

/** Appended behind the actor's back: only a cache rebuilt from the store can know of it. */
const sneak = (): void => {
  ctx.store.append({ id: newId(), userId: ctx.userId, type: 'SNUCK_IN', detail: {}, at: new Date().toISOString() });
};

t('past the restart budget the child is reset: its cache is rebuilt from the store', async () => {
  const ref = router(() => replyThenResume(() => {}, { maxCrashes: 1, withinMs: 60_000 }));
  assert.ok((await record(ref, 'FIRST')).ok);
  sneak();
  assert.equal(await types(ref), ['FIRST'], 'the cache (complete) answers before the reset');
  assert.equal(await record(ref, 'BOOM'), fail('internal', 'internal error'));
  assert.equal(await types(ref), ['FIRST'], 'resumed: the cache is kept');
  assert.equal(await record(ref, 'BOOM'), fail('internal', 'internal error'));
  assert.equal(await types(ref), ['SNUCK_IN', 'FIRST'], 'reset: reloaded from the store');
  assert.ok((await record(ref, 'LAST')).ok);
  assert.equal(await types(ref), ['LAST', 'SNUCK_IN', 'FIRST']);
});

t('a child that is stopped on a crash is spawned again by the router on the next message', async () => {
  const stopOnCrash = (): CrashPolicy => (message) => {
    const sender = (message as { sender?: Ref<Activity.RecordReply> }).sender;
    if (sender) tell(sender, fail('internal', 'internal error'));
    return 'stop';
  };
  const ref = router(stopOnCrash);
  assert.ok((await record(ref, 'FIRST')).ok);
  assert.equal(actorTree(ref).map((a) => a.name), [ctx.userId]);
  assert.equal(await record(ref, 'BOOM'), fail('internal', 'internal error'));
  await waitFor(() => actorTree(ref).length === 0, 'the stop');
  sneak();
  assert.ok((await record(ref, 'AFTER')).ok);
  assert.equal(actorTree(ref).map((a) => a.name), [ctx.userId]);
  assert.equal(await types(ref), ['AFTER', 'SNUCK_IN', 'FIRST']);
});

t.run();
