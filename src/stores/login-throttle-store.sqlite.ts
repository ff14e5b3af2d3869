import { RateLimiterSQLite, type RateLimiterRes } from 'rate-limiter-flexible';
import type { Statement } from 'better-sqlite3';
import { writeTransaction, type Db } from './sqlite.ts';
import type { LoginThrottleStore } from './login-throttle-store.ts';
import { noteWindow, type ResultHook, type Windows } from './throttle-windows.ts';

/** How often (one `remember` in this many) the known pairs are trimmed to their bound. */
const TRIM_EVERY = 100;

const windows: Windows = new WeakMap();

interface CountRow {
  readonly points: number;
  readonly expire: number | null;
}

/**
 * RateLimiterSQLite noting each count's window (the `expire` its upsert returned), and reading a
 * count with one statement prepared once per database: the library prepares its `get` anew on
 * every call, which cost a client authentication's success path more than the read itself (the
 * same query, the library's `_get` hook of the pinned version).
 */
class WindowedLimiter extends RateLimiterSQLite {
  readonly #read: (key: string, nowMs: number) => CountRow | undefined;

  constructor(
    options: ConstructorParameters<typeof RateLimiterSQLite>[0],
    read: (key: string, nowMs: number) => CountRow | undefined,
  ) {
    super(options);
    this.#read = read;
  }

  _get(rlKey: string): Promise<CountRow | null> {
    try {
      return Promise.resolve(this.#read(rlKey, Date.now()) ?? null);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

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
  const countOf = db.prepare<[string, number], CountRow>(
    'select points, expire from login_throttle where key = ? and (expire > ? or expire is null)',
  );
  const read = (key: string, nowMs: number): CountRow | undefined => countOf.get(key, nowMs);
  // Reads of several keys at once, one statement per number of keys (a client authentication reads two).
  const countsOf = new Map<number, Statement<unknown[], CountRow & { key: string }>>();
  const readCounts = (rlKeys: readonly string[], nowMs: number) => {
    let statement = countsOf.get(rlKeys.length);
    if (!statement) {
      statement = db.prepare<unknown[], CountRow & { key: string }>(
        `select key, points, expire from login_throttle where key in (${rlKeys.map(() => '?').join(', ')}) and (expire > ? or expire is null)`,
      );
      countsOf.set(rlKeys.length, statement);
    }
    return statement.all(...rlKeys, nowMs);
  };
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
      new WindowedLimiter(
        {
          storeClient: db,
          storeType: 'better-sqlite3',
          tableName: 'login_throttle',
          tableCreated: true,
          keyPrefix,
          points,
          duration,
        },
        read,
      ),
    async readCounts(keys) {
      if (keys.length === 0) return [];
      const nowMs = Date.now();
      const rlKeys = keys.map(({ counter, key }) => counter.getKey(key));
      const rows = new Map(readCounts(rlKeys, nowMs).map((row) => [row.key, row]));
      return rlKeys.map((rlKey) => {
        const row = rows.get(rlKey);
        if (!row) return null;
        return { consumedPoints: row.points, msBeforeNext: row.expire === null ? -1 : Math.max(row.expire - nowMs, 0) };
      });
    },
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
