import type { Statement } from 'better-sqlite3';
import { changeWatch, writeTransaction, type Db } from './sqlite.ts';
import type { LoginThrottleStore } from './login-throttle-store.ts';
import { SqliteLimiter, windowOf, type CountRow } from './rate-limiter-patches.ts';

/** How often (one `remember` in this many) the known pairs are trimmed to their bound. */
const TRIM_EVERY = 100;

/**
 * The rows of client authentications' count reads, kept while nothing can have changed them: no
 * other connection (another process, another instance) has committed to the file since (`PRAGMA
 * data_version`, one counter read shared with the other watches of the connection, see
 * `changeWatch`), and this process has not written a count since (every write of the table, the
 * library's and this adapter's, calls `wrote` before and after it). A row is judged against the
 * clock when it is used, so a window that ended is no count, kept or not. What it saves: the
 * count read of a success (the table's b-tree, and the ephemeral index of an `in` list) on the
 * busiest path a service-to-service caller takes. Lost in a crash at no cost: it is only a copy.
 * One per connection, shared by every adapter on it (their writes do not move its data_version).
 */
function keepCounts(db: Db) {
  const changedElsewhere = changeWatch(db);
  const rows = new Map<string, CountRow | null>();
  let writes = 0;
  let keptAt = -1;
  /** At most this many keys kept: a flood of addresses cannot grow it without bound. */
  const MAX_KEPT = 10_000;
  return {
    wrote(): void {
      writes += 1;
    },
    /** The kept rows of `keys` (undefined: not kept), after dropping them all if anything changed. */
    look(keys: readonly string[]): (CountRow | null | undefined)[] {
      if (changedElsewhere() || keptAt !== writes || rows.size > MAX_KEPT) {
        rows.clear();
        keptAt = writes;
      }
      return keys.map((key) => rows.get(key));
    },
    keep(key: string, row: CountRow | null): void {
      rows.set(key, row);
    },
  };
}

type KeptCounts = ReturnType<typeof keepCounts>;
const keptByConnection = new WeakMap<Db, KeptCounts>();
function keptCounts(db: Db): KeptCounts {
  let kept = keptByConnection.get(db);
  if (!kept) keptByConnection.set(db, (kept = keepCounts(db)));
  return kept;
}

/** A row as it counts at `nowMs`: none once its window ended. */
const live = (row: CountRow | null, nowMs: number): CountRow | null =>
  row !== null && (row.expire === null || row.expire > nowMs) ? row : null;

/** SQLite adapter of {@link LoginThrottleStore}: RateLimiterSQLite on the shared file (migration 007). */
export function sqliteLoginThrottleStore(db: Db): LoginThrottleStore {
  const takeBack = db.prepare<[string, number]>(
    'update login_throttle set points = points - 1 where key = ? and expire = ? and points > 0',
  );
  const dropEmpty = db.prepare<[string, number]>(
    'delete from login_throttle where key = ? and expire = ? and points <= 0',
  );
  const kept = keptCounts(db);
  const write = <A extends unknown[], R>(fn: (...args: A) => R): ((...args: A) => R) => {
    return (...args) => {
      kept.wrote();
      try {
        return fn(...args);
      } finally {
        kept.wrote();
      }
    };
  };
  const giveBack = write(
    writeTransaction(db, (key: string, windowEnds: number): void => {
      if (takeBack.run(key, windowEnds).changes === 1) dropEmpty.run(key, windowEnds);
    }),
  );
  const countOf = db.prepare<[string, number], CountRow>(
    'select points, expire from login_throttle where key = ? and (expire > ? or expire is null)',
  );
  const read = (key: string, nowMs: number): CountRow | undefined => countOf.get(key, nowMs);
  // Reads of several keys at once, one statement per number of keys (a client authentication reads two).
  const countsOf = new Map<number, Statement<unknown[], CountRow & { key: string }>>();
  const select = (rlKeys: readonly string[], nowMs: number) => {
    let statement = countsOf.get(rlKeys.length);
    if (!statement) {
      statement = db.prepare<unknown[], CountRow & { key: string }>(
        `select key, points, expire from login_throttle where key in (${rlKeys.map(() => '?').join(', ')}) and (expire > ? or expire is null)`,
      );
      countsOf.set(rlKeys.length, statement);
    }
    return statement.all(...rlKeys, nowMs);
  };
  /** The rows of `rlKeys` still counting at `nowMs` (null: none), from those kept or read at once. */
  const readCounts = (rlKeys: readonly string[], nowMs: number): (CountRow | null)[] => {
    const found = kept.look(rlKeys);
    const missing = rlKeys.filter((_, i) => found[i] === undefined);
    if (missing.length > 0) {
      // Read with no end of window applied (0): whether a row still counts is judged on use.
      const read = new Map(select(missing, 0).map((row) => [row.key, row]));
      for (const key of missing) kept.keep(key, read.get(key) ?? null);
      return rlKeys.map((key, i) => found[i] ?? read.get(key) ?? null).map((row) => live(row, nowMs));
    }
    return found.map((row) => live(row ?? null, nowMs));
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
  const purgeBefore = write((nowMs: number) => purge.run(nowMs).changes);
  const clearFrom = write((start: string) => clear.run(start, start).changes);
  let remembered = 0;
  return {
    counter: ({ keyPrefix, points, duration }) =>
      new SqliteLimiter(
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
        kept.wrote,
      ),
    async readCounts(keys) {
      if (keys.length === 0) return [];
      const nowMs = Date.now();
      const rlKeys = keys.map(({ counter, key }) => counter.getKey(key));
      return readCounts(rlKeys, nowMs).map((row) => {
        if (!row) return null;
        return { consumedPoints: row.points, msBeforeNext: row.expire === null ? -1 : Math.max(row.expire - nowMs, 0) };
      });
    },
    windowOf,
    giveBack: async (counter, key, windowEnds) => giveBack(counter.getKey(key), windowEnds),
    isKnown: async (pair) => known.get(pair) !== undefined,
    async remember(pair, max) {
      seen.run(pair, Date.now());
      if (++remembered % TRIM_EVERY === 0) trim.run(max - 1);
    },
    clearCounts: async (start) => clearFrom(start),
    purgeExpired: async (nowMs) => purgeBefore(nowMs),
  };
}
