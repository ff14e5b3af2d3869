import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type * as Activity from '../../actors/activity/protocol.ts';
import { spawnUserActor } from '../../actors/user/actor.ts';
import * as User from '../../actors/user/protocol.ts';
import { newId } from '../../src/ids.ts';
import { startSystem, stopSystem, tell, type ActorSystem, type Ref } from '../../src/messaging/nact.ts';
import { ok } from '../../src/messaging/reply.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';
import { sqliteUserStore } from '../../src/stores/user-store.sqlite.ts';
import { createProbe, type Probe } from '../helpers/probe.ts';
import { waitFor } from '../helpers/wait.ts';

interface Ctx {
  system: ActorSystem;
  db: Db;
  users: Ref<User.Command>;
  activity: Probe<Activity.RouterCommand>;
  clock: { now: number };
  crashes: unknown[];
}
const ctx = {} as Ctx;
const t = suite('UserActor: Get, Post, Put, Delete', ctx);

t.before.each(() => {
  ctx.db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  ctx.system = startSystem(`users-${Math.random().toString(36).slice(2)}`);
  ctx.clock = { now: Date.parse('2026-01-02T03:04:05.000Z') };
  ctx.crashes = [];
  ctx.activity = createProbe<Activity.RouterCommand>(ctx.system);
  ctx.users = spawnUserActor(ctx.system, {
    store: sqliteUserStore(ctx.db),
    activity: ctx.activity.ref,
    askTimeoutMs: 2000,
    now: () => ctx.clock.now,
    onCrash: replyThenResume((error) => ctx.crashes.push(error)),
  });
});
t.after.each(() => {
  stopSystem(ctx.system);
  ctx.db.close();
});

/** Sends the request with a probe as its sender and returns what arrives at the probe. */
async function send<R>(request: (sender: Ref<R>) => User.Command): Promise<R> {
  const probe = createProbe<R>(ctx.system);
  tell(ctx.users, request(probe.ref));
  const reply = await probe.expectMessage();
  await probe.expectNoMessage(10);
  return reply;
}

/** Answers a message the UserActor sent to the activity router, as the router would. */
function answerActivity(msg: Activity.RouterCommand): Activity.RouterCommand {
  if (msg.type === 'Forget') tell(msg.sender, ok(null));
  else if (msg.type === 'Record')
    tell(msg.sender, ok({ id: newId(), userId: msg.userId, type: msg.activityType, detail: msg.detail, at: '' }));
  return msg;
}

/** The next message the UserActor sent to the activity router; it is answered like the router would. */
async function activityMessage(): Promise<Activity.RouterCommand> {
  return answerActivity(await ctx.activity.expectMessage());
}

/**
 * For a write that records an activity: the sender's answer is held until the router confirms the
 * activity (so an acknowledged write never lacks it); returns both.
 */
async function sendRecorded<R>(
  request: (sender: Ref<R>) => User.Command,
): Promise<{ reply: R; msg: Activity.RouterCommand }> {
  const probe = createProbe<R>(ctx.system);
  tell(ctx.users, request(probe.ref));
  const msg = await ctx.activity.expectMessage();
  await probe.expectNoMessage(20);
  answerActivity(msg);
  return { reply: await probe.expectMessage(), msg };
}

async function created(name = 'Ann Lee', email = 'ann@example.com'): Promise<User.User> {
  const { reply } = await sendRecorded(User.post({ name, email }));
  if (!reply.ok) throw new Error(reply.code);
  return reply.value;
}

t(
  'Post › USER_CREATED goes to the activity router; once it is stored, the new user arrives at the sender',
  async () => {
    const { reply, msg } = await sendRecorded(User.post({ name: 'Ann Lee', email: 'Ann@Example.com' }));
    assert.ok(reply.ok);
    if (!reply.ok) return;
    const at = '2026-01-02T03:04:05.000Z';
    assert.match(reply.value.id, /^[0-9a-f]{24}$/);
    assert.equal(reply.value, {
      id: reply.value.id,
      name: 'Ann Lee',
      email: 'Ann@Example.com',
      createdAt: at,
      updatedAt: at,
      version: 1,
    });
    assert.equal(msg.type === 'Record' ? [msg.userId, msg.activityType, msg.detail] : msg.type, [
      reply.value.id,
      'USER_CREATED',
      {},
    ]);
  },
);

t('Post › an email taken in another case → user.email_taken, and nothing is recorded', async () => {
  await created();
  assert.equal(await send(User.post({ name: 'Other', email: 'ANN@example.COM' })), {
    ok: false,
    code: 'user.email_taken',
    message: 'The email ANN@example.COM is taken',
  });
  await ctx.activity.expectNoMessage(30);
});

t('Get › the user, or user.not_found', async () => {
  const user = await created();
  assert.equal(await send(User.get({ id: user.id })), { ok: true, value: user });
  const missing = newId();
  assert.equal(await send(User.get({ id: missing })), {
    ok: false,
    code: 'user.not_found',
    message: `No user with id ${missing}`,
  });
});

t('Put › changes the given fields, bumps the version, and records USER_UPDATED with the changed fields', async () => {
  const user = await created();
  ctx.clock.now += 1000;
  const { reply, msg } = await sendRecorded(
    User.put({ id: user.id, name: 'Ann Smith', email: user.email, expectedVersion: 1 }),
  );
  assert.equal(reply, {
    ok: true,
    value: { ...user, name: 'Ann Smith', updatedAt: '2026-01-02T03:04:06.000Z', version: 2 },
  });
  assert.equal(msg.type === 'Record' ? [msg.activityType, msg.detail] : msg.type, [
    'USER_UPDATED',
    { fields: ['name'] },
  ]);
  const both = await sendRecorded(User.put({ id: user.id, name: 'Ann', email: 'ann@example.org' }));
  assert.is(both.reply.ok && both.reply.value.version, 3);
  assert.equal(both.msg.type === 'Record' ? both.msg.detail : undefined, { fields: ['name', 'email'] });
});

t('Put › nothing changed: the user as it is, same version, nothing recorded', async () => {
  const user = await created();
  assert.equal(await send(User.put({ id: user.id, name: user.name })), { ok: true, value: user });
  await ctx.activity.expectNoMessage(30);
});

t(
  'Put › stale version → user.version_conflict; unknown id → user.not_found; taken email → user.email_taken',
  async () => {
    const user = await created();
    await created('Bob', 'bob@example.com');
    const stale = await send(User.put({ id: user.id, name: 'X', expectedVersion: 2 }));
    assert.is(stale.ok ? '' : stale.code, 'user.version_conflict');
    const missing = await send(User.put({ id: newId(), name: 'X' }));
    assert.is(missing.ok ? '' : missing.code, 'user.not_found');
    const taken = await send(User.put({ id: user.id, email: 'BOB@example.com' }));
    assert.is(taken.ok ? '' : taken.code, 'user.email_taken');
    assert.equal(await send(User.get({ id: user.id })), { ok: true, value: user });
    await ctx.activity.expectNoMessage(30);
  },
);

t(
  'Put › another process changing the user between the read and the write: without If-Match the PUT applies to the new version; with it, 412',
  async () => {
    const user = await created();
    const store = sqliteUserStore(ctx.db);
    let interfere = 0;
    // Another process's commit lands between the actor's read and its conditional write.
    const racing = {
      ...store,
      update: async (id: typeof user.id, version: number, changes: Parameters<typeof store.update>[2]) => {
        if (interfere > 0) {
          interfere--;
          const now = await store.find(id);
          if (now) await store.update(id, now.version, { name: `${now.name}!`, updatedAt: changes.updatedAt });
        }
        return store.update(id, version, changes);
      },
    };
    const elsewhere = startSystem(`users-racing-${Math.random().toString(36).slice(2)}`);
    const other = spawnUserActor(elsewhere, {
      store: racing,
      activity: ctx.activity.ref,
      askTimeoutMs: 2000,
      onCrash: replyThenResume(() => {}),
    });
    const put = async (request: ReturnType<typeof User.put>): Promise<User.PutReply> => {
      const probe = createProbe<User.PutReply>(ctx.system);
      tell(other, request(probe.ref));
      const msg = await ctx.activity.expectMessage(1000).catch(() => undefined);
      if (msg) answerActivity(msg);
      return probe.expectMessage();
    };
    interfere = 2;
    const applied = await put(User.put({ id: user.id, email: 'ann@example.org' }));
    assert.ok(applied.ok, 'a PUT without If-Match was refused for a change it never named');
    assert.equal(applied.ok && [applied.value.email, applied.value.name, applied.value.version], [
      'ann@example.org',
      'Ann Lee!!',
      4,
    ]);
    interfere = 1;
    const conditional = await put(User.put({ id: user.id, email: 'ann@example.net', expectedVersion: 4 }));
    assert.is(conditional.ok ? '' : conditional.code, 'user.version_conflict');
    stopSystem(elsewhere);
  },
);

t(
  'Delete › the deleted user arrives at the sender, the router is told to forget it; a second Delete → user.not_found',
  async () => {
    const user = await created();
    assert.equal(await send(User.delete({ id: user.id })), { ok: true, value: user });
    const msg = await activityMessage();
    assert.equal(msg.type === 'Forget' ? msg.userId : msg.type, user.id);
    const again = await send(User.delete({ id: user.id }));
    assert.is(again.ok ? '' : again.code, 'user.not_found');
    const gone = await send(User.get({ id: user.id }));
    assert.is(gone.ok ? '' : gone.code, 'user.not_found');
  },
);

t('supervision › a failed activity notification: the held caller gets internal, the actor carries on', async () => {
  const probe = createProbe<User.PostReply>(ctx.system);
  tell(ctx.users, User.post({ name: 'Ann', email: 'a@example.com' })(probe.ref));
  const msg = await ctx.activity.expectMessage();
  if (msg.type !== 'Record') throw new Error(msg.type);
  tell(msg.sender, { ok: false, code: 'internal', message: 'internal error' });
  assert.equal(await probe.expectMessage(), {
    ok: false,
    code: 'internal',
    message: 'internal error: USER_CREATED was not recorded: internal error',
  });
  await waitFor(() => ctx.crashes.length > 0, 'the crash report');
  assert.is(ctx.crashes.length, 1);
  assert.match(String(ctx.crashes[0]), /USER_CREATED was not recorded/);
  const stored = await send(User.get({ id: msg.userId }));
  assert.is(
    stored.ok && stored.value.email,
    'a@example.com',
    'the user row itself was written; the caller learns the outcome is unknown',
  );
  assert.ok((await sendRecorded(User.post({ name: 'Bob', email: 'b@example.com' }))).reply.ok);
});

t(
  'a message of no known kind › its sender learns the kinds the actor takes; no crash, and the actor carries on',
  async () => {
    const reply = await send((sender) => ({ type: 'Patch', id: newId(), sender }) as unknown as User.Command);
    assert.equal(reply, {
      ok: false,
      code: 'internal',
      message: "UserActor takes Get | Post | Put | Delete, not 'Patch'",
    });
    assert.equal(ctx.crashes, []);
    const gone = await send(User.get({ id: newId() }));
    assert.is(gone.ok ? '' : gone.code, 'user.not_found');
  },
);

t.run();
