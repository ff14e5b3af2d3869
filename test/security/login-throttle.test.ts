import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { heapMiB } from '../helpers/heap.ts';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { gate } from '../helpers/gate.ts';
import { tempDir } from '../helpers/server.ts';
import {
  createLoginThrottle,
  type Admission,
  type Attempt,
  type ClientStanding,
  type LoginThrottle,
  type ThrottleSettings,
} from '../../src/security/login-throttle.ts';
import { sqliteLoginThrottleStore } from '../../src/stores/login-throttle-store.sqlite.ts';
import { openDatabase, type Db } from '../../src/stores/sqlite.ts';

const admitted = (a: Admission): Attempt => {
  if ('retryAfter' in a) throw new Error(`refused for ${a.retryAfter} s`);
  return a.attempt;
};
const refused = (a: Admission): boolean => 'retryAfter' in a;

const ctx = { dbs: [] as Db[] };
const t = suite('security: login throttle', ctx);
t.after.each(() => {
  for (const db of ctx.dbs.splice(0)) db.close();
});

/** A throttle over its own store (SQLite in memory). */
function throttleOf(settings: ThrottleSettings) {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  ctx.dbs.push(db);
  return { db, throttle: createLoginThrottle(settings, sqliteLoginThrottleStore(db)) };
}

t('attempts count before their check: no more than the limit are admitted at once', async () => {
  const { throttle } = throttleOf({ maxFailuresPerUser: 3, maxFailuresPerAddress: 100, windowSeconds: 60 });
  const all = await Promise.all(Array.from({ length: 10 }, () => throttle.begin('ann', '10.0.0.1')));
  assert.is(all.filter(refused).length, 7);
  const clients = await Promise.all(Array.from({ length: 150 }, (_, i) => throttle.beginClient(`c-${i}`, '10.0.0.2')));
  assert.is(clients.filter(refused).length, 50);
});

t('a success gives its count back; a failure keeps it; an attempt never judged gives it back', async () => {
  const { throttle } = throttleOf({ maxFailuresPerUser: 2, maxFailuresPerAddress: 100, windowSeconds: 60 });
  await admitted(await throttle.begin('bo', '10.0.0.1')).abandoned();
  await admitted(await throttle.begin('bo', '10.0.0.1')).succeeded();
  await admitted(await throttle.begin('bo', '10.0.0.1')).failed();
  await admitted(await throttle.begin('bo', '10.0.0.1')).failed();
  assert.ok(refused(await throttle.begin('bo', '10.0.0.1')), 'two failures reach the limit of 2');
});

t('a username counts as usernames compare: case and width variants of a name share its count', async () => {
  const { throttle } = throttleOf({ maxFailuresPerUser: 3, maxFailuresPerAddress: 100, windowSeconds: 60 });
  await admitted(await throttle.begin('Dora', '10.0.0.1')).failed();
  await admitted(await throttle.begin('ＤＯＲＡ', '10.0.0.2')).failed();
  await admitted(await throttle.begin('ｄｏｒａ', '10.0.0.3')).failed();
  assert.ok(
    refused(await throttle.begin('dora', '10.0.0.4')),
    'three failures, under three spellings, reach the limit',
  );
  await throttle.clear('DORA');
  assert.not.ok(refused(await throttle.begin('dora', '10.0.0.4')), 'clearing any spelling clears the name');
});

t('refused attempts leave nothing behind: 5,000 with 2 KiB usernames add no row and no memory', async () => {
  const { db, throttle } = throttleOf({ maxFailuresPerUser: 5, maxFailuresPerAddress: 1, windowSeconds: 600 });
  await admitted(await throttle.begin('first', '10.0.0.9')).failed(); // the address is now at its limit
  const rows = (): number => db.prepare<[], number>('select count(*) from login_throttle').pluck().get() ?? -1;
  const before = { rows: rows(), heap: heapMiB() };
  for (let i = 0; i < 5_000; i++) assert.ok(refused(await throttle.begin(`${i}-${'x'.repeat(2048)}`, '10.0.0.9')));
  assert.is(rows(), before.rows);
  const grown = heapMiB() - before.heap;
  assert.ok(grown < 4, `the heap grew by ${grown.toFixed(1)} MiB`);
});

t('a count given back after its window ended does not cancel a count of the next window', async () => {
  const { throttle } = throttleOf({ maxFailuresPerUser: 1, maxFailuresPerAddress: 100, windowSeconds: 1 });
  const old = admitted(await throttle.begin('cy', '10.0.0.1'));
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await admitted(await throttle.begin('cy', '10.0.0.1')).failed(); // the new window's one failure
  await old.abandoned();
  assert.ok(refused(await throttle.begin('cy', '10.0.0.1')), 'the new window is still at its limit');
});

/**
 * Another process (a worker thread with its own connection) takes the file's write lock and keeps
 * it `ms`; resolves once the lock is held, with a promise of its release.
 */
async function holdWriteLock(dir: string, ms: number): Promise<{ released: Promise<unknown> }> {
  const worker = new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     const Database = require(workerData.module);
     const db = new Database(workerData.file);
     db.exec('begin immediate');
     parentPort.postMessage('locked');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.ms);
     db.exec('commit');
     db.close();`,
    {
      eval: true,
      workerData: {
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
        file: join(dir, 'troupe.db'),
        ms,
      },
    },
  );
  const exited = once(worker, 'exit');
  await once(worker, 'message');
  return { released: exited };
}

t(
  'a success gives its count back however long the store took to count it (another process held the lock)',
  async () => {
    const dir = tempDir('troupe-throttle-');
    const db = openDatabase(dir, { synchronous: 'NORMAL' });
    ctx.dbs.push(db);
    try {
      const throttle = createLoginThrottle(
        { maxFailuresPerUser: 100, maxFailuresPerAddress: 2, windowSeconds: 600 },
        sqliteLoginThrottleStore(db),
      );
      for (let i = 0; i < 4; i++) {
        const lock = await holdWriteLock(dir, 300);
        const attempt = admitted(await throttle.beginClient('svc', '10.0.0.5')); // waits for the lock
        await lock.released;
        await attempt.succeeded();
      }
      assert.not.ok(refused(await throttle.beginClient('svc', '10.0.0.5')), 'successes stayed counted as failures');
      assert.is(db.prepare<[], number>('select sum(points) from login_throttle').pluck().get(), 1, 'the last one only');
    } finally {
      for (const d of ctx.dbs.splice(0)) d.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

t('two processes on one store count together, and share the addresses known for a user', async () => {
  const dir = tempDir('troupe-throttle-');
  try {
    const settings = { maxFailuresPerUser: 4, maxFailuresPerAddress: 100, windowSeconds: 60 };
    const [a, b] = [0, 1].map(() => {
      const db = openDatabase(dir, { synchronous: 'NORMAL' });
      ctx.dbs.push(db);
      return createLoginThrottle(settings, sqliteLoginThrottleStore(db));
    }) as [LoginThrottle, LoginThrottle];
    await admitted(await a.begin('dee', '10.0.0.1')).succeeded(); // 10.0.0.1 is now known for dee, in both
    const guesses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).begin('dee', `10.0.1.${i}`)),
    );
    assert.is(guesses.filter((g) => !refused(g)).length, 4, 'two processes allowed more guesses than one');
    for (const g of guesses) if (!refused(g)) await admitted(g).failed();
    assert.ok(
      refused(await b.begin('dee', '10.0.2.1')),
      'the user is held back from new addresses in the other process too',
    );
    assert.not.ok(refused(await b.begin('dee', '10.0.0.1')), 'the known address passes in the other process');
  } finally {
    for (const db of ctx.dbs.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Neither refused nor held back. */
const CLEAR: ClientStanding = { heldBack: undefined };
const heldBack = (s: ClientStanding): boolean => 'refused' in s || s.heldBack !== undefined;

const CLIENT_LIMITS = { maxFailuresPerUser: 3, maxFailuresPerAddress: 100, windowSeconds: 60 };

t('a client is held back across addresses past its limit, except where it has authenticated before', async () => {
  const { throttle } = throttleOf(CLIENT_LIMITS);
  await admitted(await throttle.beginClient('svc', '10.0.0.1')).succeeded(); // 10.0.0.1 is now known for svc
  for (let i = 0; i < 3; i++) await admitted(await throttle.beginClient('svc', `10.0.1.${i}`)).failed();
  const standing = await throttle.readClient('svc', '10.0.2.1');
  const wait = 'heldBack' in standing ? standing.heldBack?.retryAfter : undefined;
  assert.ok(wait !== undefined && wait >= 1 && wait <= 60, `a new address waits ${wait} s`);
  assert.ok(refused(await throttle.beginClient('svc', '10.0.2.1')), 'and is refused when it counts');
  assert.equal(await throttle.readClient('svc', '10.0.0.1'), CLEAR, 'the known address is not held back');
  await admitted(await throttle.beginClient('svc', '10.0.0.1')).succeeded();
  assert.equal(await throttle.readClient('other', '10.0.2.1'), CLEAR, 'another client has its own count');
});

t('an address past its limit is held back for every client, known or not', async () => {
  const { throttle } = throttleOf({ ...CLIENT_LIMITS, maxFailuresPerAddress: 2 });
  await admitted(await throttle.beginClient('svc', '10.0.0.1')).succeeded();
  for (const id of ['x', 'y']) await admitted(await throttle.beginClient(id, '10.0.0.1')).failed();
  assert.ok(heldBack(await throttle.readClient('svc', '10.0.0.1')));
});

t('reading the counts writes nothing, and a matched success writes a pair once, then nothing', async () => {
  const { db, throttle } = throttleOf(CLIENT_LIMITS);
  const changes = (): number => db.prepare<[], number>('select total_changes()').pluck().get() ?? -1;
  await admitted(await throttle.beginClient('x', '10.0.0.1')).failed();
  const before = changes();
  for (let i = 0; i < 5; i++) assert.equal(await throttle.readClient('svc', '10.0.0.1'), CLEAR);
  assert.is(changes(), before, 'reads only');
  await throttle.clientMatched('svc', '10.0.0.1');
  assert.is(changes(), before + 1, 'the new pair is written');
  for (let i = 0; i < 5; i++) {
    assert.equal(await throttle.readClient('svc', '10.0.0.1'), CLEAR);
    await throttle.clientMatched('svc', '10.0.0.1');
  }
  assert.is(changes(), before + 1, 'no write for a pair this process wrote');
});

t('concurrent guesses that all read the counts below the limit still pass no more than the limit', async () => {
  const { throttle } = throttleOf(CLIENT_LIMITS);
  const everyRead = gate();
  let reads = 0;
  const guess = async (i: number): Promise<Admission> => {
    assert.equal(await throttle.readClient('svc', `10.0.3.${i}`), CLEAR);
    if (++reads === 10) everyRead.release();
    await everyRead.wait();
    return throttle.beginClient('svc', `10.0.3.${i}`);
  };
  const admissions = await Promise.all(Array.from({ length: 10 }, (_, i) => guess(i)));
  assert.is(admissions.filter((a) => !refused(a)).length, 3);
});

t('two processes on one store count a client together, and share the addresses known for it', async () => {
  const dir = tempDir('troupe-throttle-');
  try {
    const [a, b] = [0, 1].map(() => {
      const db = openDatabase(dir, { synchronous: 'NORMAL' });
      ctx.dbs.push(db);
      return createLoginThrottle(CLIENT_LIMITS, sqliteLoginThrottleStore(db));
    }) as [LoginThrottle, LoginThrottle];
    await admitted(await a.beginClient('svc', '10.0.0.1')).succeeded();
    const guesses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).beginClient('svc', `10.0.1.${i}`)),
    );
    assert.is(guesses.filter((g) => !refused(g)).length, 3, 'two processes allowed more guesses than one');
    for (const g of guesses) if (!refused(g)) await admitted(g).failed();
    assert.ok(heldBack(await b.readClient('svc', '10.0.2.1')), 'a new address is held back in the other process');
    assert.equal(await b.readClient('svc', '10.0.0.1'), CLEAR, 'the known address passes in the other process');
  } finally {
    for (const db of ctx.dbs.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

t('a success reads counts as they are now: written by another connection, by this one, or ended', async () => {
  const dir = tempDir('troupe-throttle-');
  try {
    const limits = { ...CLIENT_LIMITS, maxFailuresPerAddress: 2, windowSeconds: 1 };
    const [a, b] = [0, 1].map(() => {
      const db = openDatabase(dir, { synchronous: 'NORMAL' });
      ctx.dbs.push(db);
      return createLoginThrottle(limits, sqliteLoginThrottleStore(db));
    }) as [LoginThrottle, LoginThrottle];
    const failTwice = async (throttle: LoginThrottle, address: string) => {
      for (const client of ['x', 'y']) await admitted(await throttle.beginClient(client, address)).failed();
    };
    // Another connection (another process) counts failures: the next read here sees them.
    assert.equal(await a.readClient('svc', '10.0.5.1'), CLEAR);
    await failTwice(b, '10.0.5.1');
    assert.ok(heldBack(await a.readClient('svc', '10.0.5.1')), "another connection's counts were not seen");
    // This connection counts them: its own writes do not move data_version, and are seen too.
    assert.equal(await a.readClient('svc', '10.0.6.1'), CLEAR);
    await failTwice(a, '10.0.6.1');
    assert.ok(heldBack(await a.readClient('svc', '10.0.6.1')), "this connection's own counts were not seen");
    // A count whose window ended holds nothing back, though nothing was written since it was read.
    const ends = Date.now() + 1_000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, ends - Date.now()) + 100));
    assert.equal(await a.readClient('svc', '10.0.6.1'), CLEAR, 'an ended window still held the address back');
  } finally {
    for (const db of ctx.dbs.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

t('a login refused by the throttle writes nothing: its counts are read, never written', async () => {
  const { db, throttle } = throttleOf({ maxFailuresPerUser: 2, maxFailuresPerAddress: 100, windowSeconds: 60 });
  for (let i = 0; i < 2; i++) await admitted(await throttle.begin('eve', '10.0.0.1')).failed();
  const changes = (): number => db.prepare<[], number>('select total_changes()').pluck().get() ?? -1;
  const before = changes();
  for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
    const refusal = await throttle.begin('eve', address);
    assert.ok('retryAfter' in refusal && !refusal.inFlight, 'refused for the failures');
  }
  assert.is(changes(), before, 'a refused login wrote to the store');
  for (let i = 0; i < 2; i++) await admitted(await throttle.beginClient('svc', `10.0.1.${i}`)).failed();
  const clientBefore = changes();
  for (let i = 0; i < 3; i++) assert.ok(refused(await throttle.beginClient('svc', '10.0.0.9')));
  assert.is(changes(), clientBefore, 'a refused client authentication wrote to the store');
});

t(
  'a count filled by attempts in flight refuses for seconds, as in flight, in every process sharing the store',
  async () => {
    const dir = tempDir('troupe-throttle-');
    try {
      const settings = { maxFailuresPerUser: 3, maxFailuresPerAddress: 100, windowSeconds: 600 };
      const [a, b] = [0, 1].map(() => {
        const db = openDatabase(dir, { synchronous: 'NORMAL' });
        ctx.dbs.push(db);
        return createLoginThrottle(settings, sqliteLoginThrottleStore(db));
      }) as [LoginThrottle, LoginThrottle];
      const inFlight = await Promise.all(['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((at) => a.begin('fay', at)));
      const attempts = inFlight.map(admitted);
      assert.equal(
        await b.begin('fay', '10.0.0.4'),
        { retryAfter: 2, inFlight: true },
        'in flight in the other process',
      );
      assert.equal(await a.begin('fay', '10.0.0.4'), { retryAfter: 2, inFlight: true });
      for (const attempt of attempts) await attempt.failed();
      const refusal = await b.begin('fay', '10.0.0.4');
      assert.ok('retryAfter' in refusal && !refusal.inFlight && refusal.retryAfter > 500, 'now for the failures');
    } finally {
      for (const db of ctx.dbs.splice(0)) db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

t('past a client count across addresses, a held-back attempt is counted per address only', async () => {
  const { throttle } = throttleOf(CLIENT_LIMITS);
  for (let i = 0; i < 3; i++) await admitted(await throttle.beginClient('svc', `10.0.1.${i}`)).failed();
  const standing = await throttle.readClient('svc', '10.0.2.1');
  assert.ok('heldBack' in standing && standing.heldBack !== undefined && !standing.heldBack.inFlight);
  assert.ok(refused(await throttle.beginClient('svc', '10.0.2.1')), 'counted on the full client count: refused');
  const right = admitted(await throttle.beginClient('svc', '10.0.2.1', true));
  await right.succeeded();
  assert.equal(await throttle.readClient('svc', '10.0.2.1'), CLEAR, 'the address is now known for the client');
});

t.run();
