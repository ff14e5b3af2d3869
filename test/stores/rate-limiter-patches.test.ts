/**
 * The overrides of src/stores/rate-limiter-patches.ts, pinned to the rate-limiter-flexible they
 * were written against (the installed version, and the source of every private method they
 * replace or call), and each tested for what it does on SQLite against the library's own.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sqliteLoginThrottleStore } from '../../src/stores/login-throttle-store.sqlite.ts';
import { libraryOriginals, RATE_LIMITER_VERSION, windowOf } from '../../src/stores/rate-limiter-patches.ts';
import { openDatabase } from '../../src/stores/sqlite.ts';

const t = suite('stores: the rate-limiter-flexible overrides, pinned to 11.4.0');

const sha256 = (f: unknown): string => createHash('sha256').update(String(f)).digest('hex');

/** The library's private methods as 11.4.0 defines them. */
const PINNED = {
  'RateLimiterSQLite._getRateLimiterRes': 'c1f2f4f224de6954b82fed6aad2ca68c418ce90e09fbbe2236e1e4654b27f1f0',
  'RateLimiterSQLite._upsert': '465ad287f05f7ae2f8dfc02c54eef29fcae866118b97becd8d307943633d4fba',
  'RateLimiterSQLite._delete': '34f0e4d0ffa5b0f27bc6b1d3b87af9ae4c4d7bc83d332a9bb1e8436c61f0a079',
  'RateLimiterSQLite._get': 'dfbd419e77a1d1d8fb1c582538b6cf32b717285c30b862d6c373d3c14f99b0cd',
  'RateLimiterMongo._getRateLimiterRes': '7ec80c4353d9467d5ade619af4f5027f7deb78e2bea94aaf94c112d0e3ab37ec',
};

t('rate-limiter-flexible is exactly the version the overrides were written against', () => {
  const installed = createRequire(import.meta.url).resolve('rate-limiter-flexible/package.json');
  assert.is((JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version, RATE_LIMITER_VERSION);
  assert.is(RATE_LIMITER_VERSION, '11.4.0');
});

t('every private method overridden is the source it was written against', () => {
  assert.equal(Object.keys(libraryOriginals).sort(), Object.keys(PINNED).sort());
  for (const [name, f] of Object.entries(libraryOriginals))
    assert.is(sha256(f), PINNED[name as keyof typeof PINNED], `${name} changed: read it again before moving the pin`);
});

t('SQLite: a count notes its window, and the one prepared read answers as the library would', async () => {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  try {
    const store = sqliteLoginThrottleStore(db);
    const counter = store.counter({ keyPrefix: 'pin', points: 5, duration: 60 });
    const before = Date.now();
    const counted = await counter.consume('jane');
    const window = windowOf(counted);
    assert.ok(window !== undefined && window >= before + 59_000 && window <= Date.now() + 60_000, String(window));
    const { key, points, expire } = db.prepare('select key, points, expire from login_throttle').get() as {
      key: string;
      points: number;
      expire: number;
    };
    assert.is(key, counter.getKey('jane'));
    assert.is(expire, window, 'the window is the row as stored');
    const own = (await libraryOriginals['RateLimiterSQLite._get'].call(counter, key)) as Record<string, unknown>;
    assert.equal({ points: own['points'], expire: own['expire'] }, { points, expire });
    assert.is((await counter.get('jane'))?.consumedPoints, 1);
    await counter.consume('jane');
    assert.is((await counter.get('jane'))?.consumedPoints, 2, 'a write of the library is seen by the next read');
    await counter.delete('jane');
    assert.is(await counter.get('jane'), null, 'and so is a delete');
  } finally {
    db.close();
  }
});

t.run();
