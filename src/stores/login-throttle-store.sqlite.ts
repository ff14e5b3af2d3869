import { RateLimiterSQLite } from 'rate-limiter-flexible';
import type { Db } from './sqlite.ts';
import type { LoginThrottleStore } from './login-throttle-store.ts';

/** How often (one `remember` in this many) the known pairs are trimmed to their bound. */
const TRIM_EVERY = 100;

/** SQLite adapter of {@link LoginThrottleStore}: RateLimiterSQLite on the shared file (migration 007). */
export function sqliteLoginThrottleStore(db: Db): LoginThrottleStore {
  const known = db.prepare<[string], number>('select 1 from login_known_pairs where pair = ?').pluck();
  const seen = db.prepare<[string, number]>(
    'insert into login_known_pairs (pair, seen_at) values (?, ?) on conflict (pair) do update set seen_at = excluded.seen_at',
  );
  const trim = db.prepare<[number]>(
    'delete from login_known_pairs where seen_at < (select seen_at from login_known_pairs order by seen_at desc limit 1 offset ?)',
  );
  const purge = db.prepare<[number]>('delete from login_throttle where expire < ?');
  let remembered = 0;
  return {
    counter: ({ keyPrefix, points, duration }) =>
      new RateLimiterSQLite({
        storeClient: db,
        storeType: 'better-sqlite3',
        tableName: 'login_throttle',
        tableCreated: true,
        keyPrefix,
        points,
        duration,
      }),
    isKnown: async (pair) => known.get(pair) !== undefined,
    async remember(pair, max) {
      seen.run(pair, Date.now());
      if (++remembered % TRIM_EVERY === 0) trim.run(max - 1);
    },
    purgeExpired: async (nowMs) => purge.run(nowMs).changes,
  };
}
