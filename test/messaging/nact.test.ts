import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ActorUnavailableError, ask, AskTimeoutError } from '../../src/messaging/ask.ts';
import {
  MESSAGES_PER_TURN,
  spawn,
  spawnAsync,
  startSystem,
  stop,
  stopSystem,
  tell,
  type ActorSystem,
  type Ref,
} from '../../src/messaging/nact.ts';
import { actorTree, isAlive, pendingAsks } from '../../src/messaging/introspection.ts';
import { fail, ok, type Reply } from '../../src/messaging/reply.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import { createProbe } from '../helpers/probe.ts';

type CounterMsg =
  | { type: 'Add'; n: number }
  | { type: 'Get'; sender: Ref<Reply<number>> }
  | { type: 'Boom'; sender: Ref<Reply<number>> }
  | { type: 'Ignore'; sender: Ref<Reply<number>> };

const getCount = (sender: Ref<Reply<number>>): CounterMsg => ({ type: 'Get', sender });

const ctx = { system: undefined as unknown as ActorSystem, crashes: [] as string[] };
const t = suite('messaging: typed nact wrapper', ctx);

t.before.each(() => {
  ctx.system = startSystem(`test-${Math.random().toString(36).slice(2)}`);
  ctx.crashes = [];
});
t.after.each(() => stopSystem(ctx.system));

const spawnCounter = (name = 'counter'): Ref<CounterMsg> =>
  spawn<number, CounterMsg>(
    ctx.system,
    (n, msg) => {
      switch (msg.type) {
        case 'Add':
          return n + msg.n;
        case 'Get':
          tell(msg.sender, ok(n));
          return n;
        case 'Boom':
          throw new Error('boom');
        case 'Ignore':
          return n;
      }
    },
    {
      name,
      initialState: () => 10,
      onCrash: replyThenResume((_e, path, decision) => ctx.crashes.push(`${path} ${decision}`), {
        maxCrashes: 2,
        withinMs: 60_000,
      }),
    },
  );

t('ask: the reply dispatched to the sender resolves the ask', async () => {
  const counter = spawnCounter();
  tell(counter, { type: 'Add', n: 5 });
  assert.equal(await ask(counter, getCount, 1000), ok(15));
});

t('ask: an actor that never answers rejects with AskTimeoutError', async () => {
  const counter = spawnCounter();
  try {
    await ask(counter, (sender: Ref<Reply<number>>): CounterMsg => ({ type: 'Ignore', sender }), 50);
    assert.unreachable('should time out');
  } catch (error) {
    assert.instance(error, AskTimeoutError);
    assert.is((error as AskTimeoutError).timeoutMs, 50);
  }
});

t('ask: a stopped actor rejects at once with ActorUnavailableError', async () => {
  const counter = spawnCounter();
  stop(counter);
  try {
    await ask(counter, getCount, 5000);
    assert.unreachable('should reject');
  } catch (error) {
    assert.instance(error, ActorUnavailableError);
  }
});

t('ask: concurrent asks each get their own reply, even when Math.random repeats itself', async () => {
  type Echo = { type: 'Echo'; n: number; sender: Ref<number> };
  const echo = spawn<null, Echo>(
    ctx.system,
    (s, msg) => {
      tell(msg.sender, msg.n);
      return s;
    },
    { name: 'echo', initialState: () => null },
  );
  const random = Math.random;
  Math.random = () => 0.5; // every reply slot named at random would be the same one
  try {
    const asks = Array.from({ length: 200 }, (_, n) =>
      ask(echo, (sender: Ref<number>): Echo => ({ type: 'Echo', n, sender }), 2000),
    );
    assert.equal(
      await Promise.all(asks),
      Array.from({ length: 200 }, (_, n) => n),
    );
  } finally {
    Math.random = random;
  }
});

/** Keeps the senders of Hold; Answer tells the held sender at `index` its `value`. */
type HolderMsg = { type: 'Hold'; sender: Ref<string> } | { type: 'Answer'; index: number; value: string };
const spawnHolder = (system: ActorSystem): Ref<HolderMsg> =>
  spawn<Ref<string>[], HolderMsg>(
    system,
    (held, msg) => {
      if (msg.type === 'Hold') return [...held, msg.sender];
      const sender = held[msg.index];
      if (sender) tell(sender, msg.value);
      return held;
    },
    { name: 'holder', initialState: () => [] },
  );
const hold = (sender: Ref<string>): HolderMsg => ({ type: 'Hold', sender });

t('ask: a late reply to an ask that timed out is dropped, also when a new ask has its slot', async () => {
  const holder = spawnHolder(ctx.system);
  try {
    await ask(holder, hold, 30);
    assert.unreachable('should time out');
  } catch (error) {
    assert.instance(error, AskTimeoutError);
  }
  // The timed-out ask's slot is free again and the next ask takes it.
  const next = ask(holder, hold, 2000);
  tell(holder, { type: 'Answer', index: 0, value: 'late reply to the first ask' });
  tell(holder, { type: 'Answer', index: 1, value: 'reply to the second ask' });
  assert.is(await next, 'reply to the second ask');
  assert.is(pendingAsks(ctx.system), 0);
});

t('stopSystem: only the asks to its own actors are rejected', async () => {
  const other = startSystem(`test-${Math.random().toString(36).slice(2)}`);
  try {
    const mine = ask(spawnHolder(ctx.system), hold, 60_000);
    const otherHolder = spawnHolder(other);
    const theirs = ask(otherHolder, hold, 60_000);
    stopSystem(ctx.system);
    try {
      await mine;
      assert.unreachable('should reject');
    } catch (error) {
      assert.instance(error, ActorUnavailableError);
    }
    assert.is(pendingAsks(other), 1);
    tell(otherHolder, { type: 'Answer', index: 0, value: 'still answered' });
    assert.is(await theirs, 'still answered');
  } finally {
    stopSystem(other);
  }
});

t('stopSystem: an ask still waiting for its reply rejects with ActorUnavailableError', async () => {
  const counter = spawnCounter();
  const waiting = ask(counter, (sender: Ref<Reply<number>>): CounterMsg => ({ type: 'Ignore', sender }), 60_000);
  stopSystem(ctx.system);
  try {
    await waiting;
    assert.unreachable('should reject');
  } catch (error) {
    assert.instance(error, ActorUnavailableError);
  }
});

t('stop: the asks still queued at an actor that is stopped reject at once with ActorUnavailableError', async () => {
  type Slow = { type: 'Slow'; sender: Ref<string> };
  const slow = spawnAsync<null, Slow>(
    ctx.system,
    async (s, msg) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      tell(msg.sender, 'done');
      return s;
    },
    { name: 'slow', initialState: () => null },
  );
  const asks = Array.from({ length: 3 }, () =>
    ask(slow, (sender: Ref<string>): Slow => ({ type: 'Slow', sender }), 10_000).then(
      String,
      (e: unknown) => (e as Error).name,
    ),
  );
  await new Promise((resolve) => setImmediate(resolve)); // the first is being handled, two wait
  stop(slow);
  const outcomes = await Promise.all(asks);
  assert.equal(outcomes.slice(1), ['ActorUnavailableError', 'ActorUnavailableError'], 'rejected, not left to time out');
});

t('supervision: a crash answers the sender with internal and keeps the state', async () => {
  const counter = spawnCounter();
  const probe = createProbe<Reply<number>>(ctx.system);
  tell(counter, { type: 'Add', n: 1 });
  tell(counter, { type: 'Boom', sender: probe.ref });
  assert.equal(await probe.expectMessage(), fail('internal', 'internal error: boom'));
  tell(counter, { type: 'Get', sender: probe.ref });
  assert.equal(await probe.expectMessage(), ok(11));
  assert.equal(ctx.crashes.length, 1);
  assert.match(ctx.crashes[0] ?? '', /counter resume$/);
});

t(
  'supervision: past the restart budget the failure escalates: the actor is stopped and its parent decides',
  async () => {
    const escalated: string[] = [];
    const system = startSystem(`escalate-${Math.random().toString(36).slice(2)}`, (name, error) =>
      escalated.push(`${name}: ${(error as Error).message}`),
    );
    try {
      const counter = spawn<number, CounterMsg>(
        system,
        (n, msg) => {
          if (msg.type === 'Boom') throw new Error('boom');
          if (msg.type === 'Get') tell(msg.sender, ok(n));
          return n;
        },
        {
          name: 'counter',
          initialState: () => 10,
          onCrash: replyThenResume((_e, path, decision) => ctx.crashes.push(`${path} ${decision}`), {
            maxCrashes: 2,
            withinMs: 60_000,
          }),
        },
      );
      const probe = createProbe<Reply<number>>(system);
      for (let i = 0; i < 2; i++) {
        tell(counter, { type: 'Boom', sender: probe.ref });
        assert.equal(await probe.expectMessage(), fail('internal', 'internal error: boom'));
      }
      assert.ok(isAlive(counter), 'within the budget: resumed');
      tell(counter, { type: 'Boom', sender: probe.ref });
      const queued = ask(counter, getCount, 10_000).then(String, (e: unknown) => (e as Error).name);
      assert.equal(await probe.expectMessage(), fail('internal', 'internal error: boom'));
      assert.is(await queued, 'ActorUnavailableError', 'the ask queued behind the crash is rejected at once');
      assert.not.ok(isAlive(counter), 'stopped');
      assert.equal(escalated, ['counter: boom']);
      assert.match(ctx.crashes.at(-1) ?? '', /counter escalate$/);
    } finally {
      stopSystem(system);
    }
  },
);

t('stop: stopping a parent stops its children too', async () => {
  const parent = spawn<null, { type: 'Spawn'; sender: Ref<Reply<string>> }>(
    ctx.system,
    (s, msg, actor) => {
      const child = spawn(actor.self, (x: null) => x, { name: 'child', initialState: () => null });
      tell(msg.sender, ok(String(isAlive(child))));
      return s;
    },
    { name: 'parent', initialState: () => null },
  );
  assert.equal(
    await ask(parent, (sender: Ref<Reply<string>>) => ({ type: 'Spawn' as const, sender }), 1000),
    ok('true'),
  );
  assert.equal(
    actorTree(ctx.system).map((a) => [a.name, a.children.map((c) => c.name)]),
    [['parent', ['child']]],
  );
  stop(parent);
  assert.equal(actorTree(ctx.system), []);
  assert.is(isAlive(parent), false);
});

t('probe: expectNoMessage passes on silence and fails on a message', async () => {
  const probe = createProbe<string>(ctx.system);
  await probe.expectNoMessage(20);
  tell(probe.ref, 'hello');
  try {
    await probe.expectNoMessage(20);
    assert.unreachable('should fail');
  } catch (error) {
    assert.match(String(error), /unexpected message "hello"/);
  }
});

t('stopSystem: actors with idle timers and children are all stopped, so the process exits', () => {
  const run = spawnSync(process.execPath, ['test/fixtures/stop-system.ts'], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.is(run.stdout.trim(), 'stopped');
  assert.is(run.signal, null, 'the process had to be killed: something kept it alive');
  assert.is(run.status, 0);
});

/** Turns of the event loop seen while `work` runs: a `setImmediate` counting itself until it settles. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const tick = (): void => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  done = true;
  return turns;
}

/** An actor recording the turn (by a counter bumped in every `setImmediate`) each message was handled in. */
function turnRecorder(messagesPerTurn?: number, async = false) {
  let turn = 0;
  const bump = (): void => {
    turn++;
    if (!stopped) setImmediate(bump);
  };
  let stopped = false;
  setImmediate(bump);
  const handledIn: number[] = [];
  type Note = { type: 'Note'; async: boolean; sender: Ref<Reply<number>> };
  const note = (msg: Note): void => {
    handledIn.push(turn);
    tell(msg.sender, ok(turn));
  };
  const options = {
    name: 'recorder',
    initialState: () => null,
    ...(messagesPerTurn === undefined ? {} : { messagesPerTurn }),
  };
  const ref = async
    ? spawnAsync<null, Note>(ctx.system, async (state, msg) => (note(msg), state), options)
    : spawn<null, Note>(ctx.system, (state, msg) => (note(msg), state), options);
  return {
    ref,
    handledIn,
    stop: () => {
      stopped = true;
    },
  };
}

t(
  'mailbox: the messages queued behind the first are handled in the same turn, synchronous handlers or not',
  async () => {
    for (const async of [false, true]) {
      const recorder = turnRecorder(undefined, async);
      const probe = createProbe<Reply<number>>(ctx.system);
      for (let i = 0; i < 10; i++) tell(recorder.ref, { type: 'Note', async, sender: probe.ref });
      for (let i = 0; i < 10; i++) await probe.expectMessage(1000);
      recorder.stop();
      assert.is(
        new Set(recorder.handledIn).size,
        1,
        `handled in turns ${recorder.handledIn.join(',')} (async ${async})`,
      );
      stop(recorder.ref);
      await new Promise((resolve) => setImmediate(resolve));
    }
  },
);

t('mailbox: past MESSAGES_PER_TURN the actor yields a turn, so sockets and timers are not starved', async () => {
  const recorder = turnRecorder();
  const probe = createProbe<Reply<number>>(ctx.system);
  const n = MESSAGES_PER_TURN * 3;
  for (let i = 0; i < n; i++) tell(recorder.ref, { type: 'Note', async: false, sender: probe.ref });
  for (let i = 0; i < n; i++) await probe.expectMessage(1000);
  recorder.stop();
  const perTurn = new Map<number, number>();
  for (const turn of recorder.handledIn) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
  assert.ok(perTurn.size >= 3, `${n} messages in ${perTurn.size} turns`);
  assert.ok([...perTurn.values()].every((count) => count <= MESSAGES_PER_TURN));
});

t('mailbox: messagesPerTurn 1 is one message per turn, as nact itself paces them', async () => {
  const recorder = turnRecorder(1);
  const probe = createProbe<Reply<number>>(ctx.system);
  for (let i = 0; i < 5; i++) tell(recorder.ref, { type: 'Note', async: false, sender: probe.ref });
  for (let i = 0; i < 5; i++) await probe.expectMessage(1000);
  recorder.stop();
  assert.is(new Set(recorder.handledIn).size, 5, `handled in turns ${recorder.handledIn.join(',')}`);
});

t('mailbox: ten concurrent asks are answered within a turn or two, not a turn each', async () => {
  const counter = spawnCounter();
  const turns = await turnsDuring(() => Promise.all(Array.from({ length: 10 }, () => ask(counter, getCount, 1000))));
  assert.ok(turns <= 2, `${turns} turns`);
});

t.run();
