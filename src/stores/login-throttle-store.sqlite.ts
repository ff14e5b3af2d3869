import { RateLimiterSQLite, type RateLimiterRes } from 'rate-limiter-flexible';
import { writeTransaction, type Db } from './sqlite.ts';
import type { LoginThrottleStore } from './login-throttle-store.ts';
import { noteWindow, type ResultHook, type Windows } from './throttle-windows.ts';

/** How often (one `remember` in this many) the known pairs are trimmed to their bound. */
const TRIM_EVERY = 100;

const windows: Windows = new WeakMap();

/** RateLimiterSQLite noting each count's window (the `expire` its upsert returned). */
class WindowedLimiter extends RateLimiterSQLite {
  _getRateLimiterRes(rlKey: string, changedPoints: number, row: { expire?: number | null }): RateLimiterRes {
    const base = (RateLimiterSQLite.prototype as unknown as ResultHook)._getRateLimiterRes;
    return noteWindow(windows, base.call(this, rlKey, changedPoints, row), row.expire);
  }
}

/** SQLite adapter of {@link LoginThrottleStore}: RateLimiterSQLite on the shared file (migration 007). */
export function sqliteLoginThrottleStore(db: Db): LoginThrottleStore {
  const takeBack = db.prepare<[string, number]>(
    'update login_throttle set points = points - 1 where key = ? and expire = ? and points > 0',
  );
  const dropEmpty = db.prepare<[string, number]>(
    'delete from login_throttle where key = ? and expire = ? and points <= 0',
  );
  const giveBack = writeTransaction(db, (key: string, windowEnds: number): void => {
    if (takeBack.run(key, windowEnds).changes === 1) dropEmpty.run(key, windowEnds);
  });
  const known = db.prepare<[string], number>('select 1 from login_known_pairs where pair = ?').pluck();
  const seen = db.prepare<[string, number]>(
    'insert into login_known_pairs (pair, seen_at) values (?, ?) on conflict (pair) do update set seen_at = excluded.seen_at',
  );
  const trim = db.prepare<[number]>(
    'delete from login_known_pairs where seen_at < (select seen_at from login_known_pairs order by seen_at desc limit 1 offset ?)',
  );
  const purge = db.prepare<[number]>('delete from login_throttle where expire < ?');
  const clear = db.prepare<[string, string]>('delete from login_throttle where substr(key, 1, length(?)) = ?');
  let remembered = 0;
  return {
    counter: ({ keyPrefix, points, duration }) =>
      new WindowedLimiter({
        storeClient: db,
        storeType: 'better-sqlite3',
        tableName: 'login_throttle',
        tableCreated: true,
        keyPrefix,
        points,
        duration,
      }),
    windowOf: (result) => windows.get(result),
    giveBack: async (counter, key, windowEnds) => giveBack(counter.getKey(key), windowEnds),
    isKnown: async (pair) => known.get(pair) !== undefined,
    async remember(pair, max) {
      seen.run(pair, Date.now());
      if (++remembered % TRIM_EVERY === 0) trim.run(max - 1);
    },
    clearCounts: async (start) => clear.run(start, start).changes,
    purgeExpired: async (nowMs) => purge.run(nowMs).changes,
  };
}
