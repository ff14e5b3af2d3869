import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as Activity from '../../actors/activity/protocol.ts';
import { spawnActivityRouter } from '../../actors/activity/router.ts';
import { newId, type ObjectIdString } from '../../src/ids.ts';
import { ask } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem, tell, type ActorSystem, type Ref } from '../../src/messaging/nact.ts';
import { actorTree, isAlive } from '../../src/messaging/introspection.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import type { ActivityStore } from '../../src/stores/activity-store.ts';
import { sqliteActivityStore } from '../../src/stores/activity-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { sqliteUserStore } from '../../src/stores/user-store.sqlite.ts';
import type { UserStore } from '../../src/stores/user-store.ts';
import { createProbe } from '../helpers/probe.ts';
import { waitFor } from '../helpers/wait.ts';

interface Ctx {
  system: ActorSystem;
  db: Db;
  users: UserStore;
  store: ActivityStore;
  crashes: string[];
}
const ctx = {} as Ctx;
const t = suite('ActivityActor: one per user id under the router', ctx);

t.before.each(() => {
  ctx.db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  ctx.users = sqliteUserStore(ctx.db);
  ctx.store = sqliteActivityStore(ctx.db);
  ctx.system = startSystem(`activity-${Math.random().toString(36).slice(2)}`);
  ctx.crashes = [];
});
t.after.each(() => {
  stopSystem(ctx.system);
  ctx.db.close();
});

async function newUser(): Promise<ObjectIdString> {
  const id = newId();
  const at = new Date().toISOString();
  const result = await ctx.users.insert({ id, name: 'Ann', email: `${id}@example.com`, createdAt: at, updatedAt: at });
  assert.ok(result.ok);
  return id;
}

function router(
  options: { idleMs?: number; cacheSize?: number; maxLive?: number; store?: ActivityStore } = {},
): Ref<Activity.RouterCommand> {
  return spawnActivityRouter(ctx.system, {
    store: options.store ?? ctx.store,
    idleMs: options.idleMs ?? 60_000,
    cacheSize: options.cacheSize,
    maxLive: options.maxLive,
    onCrash: () => replyThenResume((error, path) => ctx.crashes.push(`${path}: ${String(error)}`)),
  });
}

const children = (ref: Ref<Activity.RouterCommand>): string[] =>
  actorTree(ref)
    .map((a) => a.name)
    .sort();

async function record(
  ref: Ref<Activity.RouterCommand>,
  userId: ObjectIdString,
  type = 'LOGIN',
  detail?: Activity.Detail,
): Promise<Activity.Activity> {
  const reply = await ask(ref, Activity.record({ userId, type, detail }), 2000);
  if (!reply.ok) throw new Error(`record failed: ${reply.code}`);
  return reply.value;
}

async function history(
  ref: Ref<Activity.RouterCommand>,
  userId: ObjectIdString,
  limit = 50,
  before?: number,
): Promise<Activity.HistoryPage> {
  const reply = await ask(ref, Activity.history({ userId, limit, before }), 2000);
  if (!reply.ok) throw new Error(`history failed: ${reply.code}`);
  return reply.value;
}

t('Record and History › replies arrive at the sender given in the message', async () => {
  const ref = router();
  const userId = await newUser();
  const probe = createProbe<Activity.RecordReply>(ctx.system);
  tell(ref, Activity.record({ userId, type: 'LOGIN', detail: { ip: '10.0.0.1' } })(probe.ref));
  const reply = await probe.expectMessage();
  assert.ok(reply.ok);
  if (!reply.ok) return;
  assert.match(reply.value.id, /^[0-9a-f]{24}$/);
  assert.equal(
    { ...reply.value, id: '', at: '' },
    { id: '', userId, type: 'LOGIN', detail: { ip: '10.0.0.1' }, at: '' },
  );
  assert.ok(!Number.isNaN(Date.parse(reply.value.at)));
  const pages = createProbe<Activity.HistoryReply>(ctx.system);
  tell(ref, Activity.history({ userId, limit: 10 })(pages.ref));
  assert.equal(await pages.expectMessage(), { ok: true, value: { activities: [reply.value], next: null } });
  await probe.expectNoMessage(20);
});

t('spawn on demand › no child before the first message, then one child per user id, named by the id', async () => {
  const ref = router();
  const [a, b] = [await newUser(), await newUser()];
  assert.equal(children(ref), []);
  await history(ref, a);
  assert.equal(children(ref), [a]);
  await record(ref, a);
  await record(ref, b);
  assert.equal(children(ref), [a, b].sort());
});

t('idle stop › the child stops after the idle period and is spawned again with its history intact', async () => {
  const ref = router({ idleMs: 20 });
  const userId = await newUser();
  const first = await record(ref, userId, 'FIRST');
  await waitFor(() => children(ref).length === 0, 'the idle stop');
  const second = await record(ref, userId, 'SECOND');
  assert.equal(children(ref), [userId]);
  await waitFor(() => children(ref).length === 0, 'the second idle stop');
  assert.equal((await history(ref, userId)).activities, [second, first]);
});

t('idle stop › messages sent to a user whose actor keeps stopping are never lost', async () => {
  const ref = router({ idleMs: 1 });
  const userId = await newUser();
  for (let i = 0; i < 30; i++) {
    await record(ref, userId, 'TICK', { i });
    if (i % 3 === 0) await waitFor(() => children(ref).length === 0, 'an idle stop');
  }
  const page = await history(ref, userId, 100);
  assert.equal(
    page.activities.map((a) => a.detail['i']),
    Array.from({ length: 30 }, (_, i) => 29 - i),
  );
});

t('order › 1,000 concurrent records per user keep their order, with two users interleaved', async () => {
  const ref = router();
  const users = [await newUser(), await newUser()];
  const probe = createProbe<Activity.RecordReply>(ctx.system);
  for (let n = 0; n < 1000; n++)
    for (const userId of users) tell(ref, Activity.record({ userId, type: 'STEP', detail: { n } })(probe.ref));
  const seen = new Map<string, number[]>(users.map((u) => [u, []]));
  for (let i = 0; i < 2000; i++) {
    const reply = await probe.expectMessage(5000);
    if (!reply.ok) throw new Error(reply.code);
    seen.get(reply.value.userId)?.push(reply.value.detail['n'] as number);
  }
  const expected = Array.from({ length: 1000 }, (_, n) => n);
  for (const userId of users) {
    assert.equal(seen.get(userId), expected);
    const first = await history(ref, userId, 500);
    const rest = await history(ref, userId, 500, first.next ?? undefined);
    assert.is(rest.next, null);
    assert.equal(
      [...first.activities, ...rest.activities].map((a) => a.detail['n']),
      [...expected].reverse(),
    );
  }
});

t(
  "backlog › a burst for one user waits in the router's mailbox (which actors.mailbox-limit bounds), not in the user's actor",
  async () => {
    const ref = router();
    const userId = await newUser();
    const probe = createProbe<Activity.RecordReply>(ctx.system);
    for (let n = 0; n < 500; n++) tell(ref, Activity.record({ userId, type: 'STEP', detail: { n } })(probe.ref));
    const depth = () => actorTree(ctx.system)[0]?.children[0]?.mailbox ?? 0;
    assert.is(actorTree(ctx.system)[0]?.mailbox, 499, 'all of it queued at the router (the first is being handled)');
    let deepest = 0;
    for (let i = 0; i < 500; i++) {
      await probe.expectMessage(5000);
      deepest = Math.max(deepest, depth());
    }
    assert.ok(deepest <= 1, `the user's actor held ${deepest} waiting messages`);
  },
);

t('History › pages are newest first and the cursor visits every activity once, across the cache boundary', async () => {
  const ref = router({ cacheSize: 3 });
  const userId = await newUser();
  const recorded: string[] = [];
  for (let i = 0; i < 7; i++) recorded.unshift((await record(ref, userId, 'STEP', { i })).id);
  for (const limit of [1, 2, 3, 4, 7, 8]) {
    const ids: string[] = [];
    let before: number | undefined;
    let pages = 0;
    do {
      const page = await history(ref, userId, limit, before);
      ids.push(...page.activities.map((a) => a.id));
      before = page.next ?? undefined;
      pages++;
    } while (before !== undefined);
    assert.equal(ids, recorded, `limit ${limit}`);
    assert.is(pages, Math.ceil(7 / limit), `pages for limit ${limit}`);
  }
});

/**
 * The real store, but with appends that become visible out of order, as on MongoDB (numbered in
 * one write, inserted in another): the activities in `pending` are numbered but not yet visible,
 * and a page then says it is not settled, as the MongoDB adapter says of a page with a gap.
 */
function outOfOrder(store: ActivityStore, pending: Set<number>): ActivityStore {
  return {
    ...store,
    latestSeq: async (userId) =>
      (await store.page(userId, { limit: 1000 })).items.find((a) => !pending.has(a.seq))?.seq,
    async page(userId, options) {
      const page = await store.page(userId, options);
      return { ...page, items: page.items.filter((a) => !pending.has(a.seq)), settled: pending.size === 0 };
    },
  };
}

t('History › a page read while an earlier append was not yet visible is not kept: it shows up next time', async () => {
  const pending = new Set<number>();
  const ref = router({ store: outOfOrder(ctx.store, pending) });
  const userId = await newUser();
  await record(ref, userId, 'FIRST');
  await record(ref, userId, 'SECOND'); // numbered before THIRD, but seen after it
  await record(ref, userId, 'THIRD');
  const second = (await ctx.store.page(userId, { limit: 3 })).items[1];
  pending.add(second?.seq ?? -1);
  assert.equal(
    (await history(ref, userId)).activities.map((a) => a.type),
    ['THIRD', 'FIRST'],
  );
  pending.clear(); // the insert lands
  assert.equal(
    (await history(ref, userId)).activities.map((a) => a.type),
    ['THIRD', 'SECOND', 'FIRST'],
  );
});

t('Record › an unknown user → user.not_found', async () => {
  const ref = router();
  const reply = await ask(ref, Activity.record({ userId: newId(), type: 'LOGIN' }), 2000);
  assert.is(reply.ok ? '' : reply.code, 'user.not_found');
});

t('Record › the actor of an unknown user stops at once, not after the idle period', async () => {
  const ref = router({ idleMs: 60_000 });
  const unknown = Array.from({ length: 50 }, () => newId());
  const replies = await Promise.all(
    unknown.map((userId) => ask(ref, Activity.record({ userId, type: 'LOGIN' }), 2000)),
  );
  assert.ok(replies.every((r) => !r.ok && r.code === 'user.not_found'));
  await waitFor(() => children(ref).length === 0, "the stop of every unknown user's actor", 1000);
  const userId = await newUser();
  await record(ref, userId);
  assert.equal(children(ref), [userId], "a known user's actor stays");
});

t("Forget › the user's actor stops; a Forget for a user without an actor is answered too", async () => {
  const ref = router();
  const userId = await newUser();
  await record(ref, userId);
  assert.ok(await ctx.users.delete(userId));
  assert.equal(await ask(ref, Activity.forget({ userId: userId }), 2000), { ok: true, value: null });
  await waitFor(() => children(ref).length === 0, 'the stop after Forget');
  assert.equal(await ask(ref, Activity.forget({ userId: newId() }), 2000), { ok: true, value: null });
  assert.equal((await history(ref, userId)).activities, []);
});

t("supervision › a store fault is answered with internal and the user's actor carries on", async () => {
  const faulty: ActivityStore = {
    ...ctx.store,
    append: (a) => {
      if (a.type === 'BOOM') throw new Error('disk on fire');
      return ctx.store.append(a);
    },
  };
  const ref = router({ store: faulty });
  const userId = await newUser();
  const kept = await record(ref, userId, 'BEFORE');
  const reply = await ask(ref, Activity.record({ userId, type: 'BOOM' }), 2000);
  assert.equal(reply, { ok: false, code: 'internal', message: 'internal error: disk on fire' });
  assert.is(ctx.crashes.length, 1);
  const after = await record(ref, userId, 'AFTER');
  assert.equal((await history(ref, userId)).activities, [after, kept]);
  assert.ok(isAlive(ref));
});

t('a message of no known kind › the router answers with the kinds it takes; no crash', async () => {
  const ref = router();
  const reply = await ask(
    ref,
    (sender) => ({ type: 'Purge', userId: newId(), sender }) as unknown as Activity.RouterCommand,
    2000,
  );
  assert.equal(reply, {
    ok: false,
    code: 'internal',
    message: "the activity router takes Record | History | Forget, not 'Purge'",
  });
  assert.equal(ctx.crashes, []);
  assert.equal(children(ref), [], 'no child spawned for it');
});

t('max-live › a fourth user stops the least recently used actor; 20 users never make more than 3 alive', async () => {
  const ref = router({ maxLive: 3 });
  const users = [await newUser(), await newUser(), await newUser()];
  for (const id of users) await record(ref, id);
  await history(ref, users[0] ?? newId(), 1); // the first is now the most recently used
  const fourth = await newUser();
  await record(ref, fourth);
  assert.equal(children(ref), [users[0], users[2], fourth].map(String).sort(), 'the least recently used is gone');
  let most = 0;
  for (let i = 0; i < 20; i++) {
    const id = await newUser();
    await record(ref, id);
    most = Math.max(most, children(ref).length);
  }
  assert.is(most, 3);
  // A stopped user's actor comes back with its history from the store.
  assert.is((await history(ref, users[1] ?? newId(), 10)).activities.length, 1);
});

t('History › the cache holds what was read (one more than asked), not a fixed 50', async () => {
  const asked: number[] = [];
  const counting: ActivityStore = {
    ...ctx.store,
    page: (userId, options) => {
      asked.push(options.limit);
      return ctx.store.page(userId, options);
    },
  };
  const ref = router({ store: counting });
  const id = await newUser();
  for (let i = 0; i < 60; i++) await record(ref, id, 'LOGIN', { i });
  const one = await history(ref, id, 1);
  assert.is(one.activities.length, 1);
  assert.ok(one.next !== null);
  assert.equal(asked, [2], 'a limit=1 read loads two activities');
  assert.is((await history(ref, id, 1)).activities[0]?.id, one.activities[0]?.id);
  assert.equal(asked, [2], 'the same read again is answered from the cache');
  const ten = await history(ref, id, 10);
  assert.is(ten.activities.length, 10);
  assert.equal(asked, [2, 11], 'a larger read loads what it asks for');
  const page = await history(ref, id, 60);
  assert.is(page.activities.length, 60);
  assert.is(page.next, null);
});

t.run();
