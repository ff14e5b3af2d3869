/**
 * Every override of rate-limiter-flexible 11.4.0's private methods, in one place: the login
 * throttle's limiters (`login-throttle-store.sqlite.ts`, `login-throttle-store.mongo.ts`) are
 * these classes. Each overridden method is pinned by `test/stores/rate-limiter-patches.test.ts`
 * to the library's source, so that a new version fails there before it misbehaves.
 * - **the exact window** (`_getRateLimiterRes`, both stores): the library builds each result from
 *   the row or document its atomic write returned; noting that row's expiry lets a give-back name
 *   the very window its count was made in instead of estimating it from clocks. Needed for the
 *   throttle's guarantee, not for speed.
 * - **one prepared read** (`_get`, SQLite): the library prepares its `select` anew on every call;
 *   the same query is prepared once per database (claim 18, docs/benchmarks.md, "Patches of
 *   rate-limiter-flexible").
 * - **kept counts** (`_upsert`, `_delete`, SQLite): every write of the library's tells the adapter,
 *   before and after it, so that the counts it keeps for reading are forgotten (claim 18, same
 *   section).
 */
import { RateLimiterMongo, RateLimiterSQLite, type RateLimiterRes } from 'rate-limiter-flexible';
import type { IRateLimiterMongoFunctionOptions } from 'rate-limiter-flexible';
import type { Runner } from './mongo.ts';

/** The rate-limiter-flexible version the overrides are written against (its package.json's `version`). */
export const RATE_LIMITER_VERSION = '11.4.0';

/** The library's private methods overridden here, which its typings leave out. */
interface Hidden {
  _getRateLimiterRes(rlKey: string, changedPoints: number, result: unknown): RateLimiterRes;
  _upsert(rlKey: string, points: number, msDuration: number, forceExpire?: boolean): Promise<unknown>;
  _delete(rlKey: string): Promise<unknown>;
  _get(rlKey: string): Promise<unknown>;
}
const sqliteOwn = RateLimiterSQLite.prototype as unknown as Hidden;
const mongoOwn = RateLimiterMongo.prototype as unknown as Hidden;

/** The library's own methods that the classes here override, as it defines them (for the tests that pin them). */
export const libraryOriginals = Object.freeze({
  'RateLimiterSQLite._getRateLimiterRes': sqliteOwn._getRateLimiterRes,
  'RateLimiterSQLite._upsert': sqliteOwn._upsert,
  'RateLimiterSQLite._delete': sqliteOwn._delete,
  'RateLimiterSQLite._get': sqliteOwn._get,
  'RateLimiterMongo._getRateLimiterRes': mongoOwn._getRateLimiterRes,
});

/** Results and the end of the window (epoch ms, as stored) each was counted in. */
const windows = new WeakMap<RateLimiterRes, number>();

/** The end of the window `result` was counted in (epoch ms), when its store returned one. */
export const windowOf = (result: RateLimiterRes): number | undefined => windows.get(result);

function noteWindow(res: RateLimiterRes, expire: number | Date | null | undefined): RateLimiterRes {
  if (expire !== null && expire !== undefined) windows.set(res, expire instanceof Date ? expire.getTime() : expire);
  return res;
}

/** A count's row as the SQLite table holds it. */
export interface CountRow {
  readonly points: number;
  readonly expire: number | null;
}

/** RateLimiterSQLite with the exact window, one prepared read, and its writes told to `wrote`. */
export class SqliteLimiter extends RateLimiterSQLite {
  readonly #read: (key: string, nowMs: number) => CountRow | undefined;
  readonly #wrote: () => void;

  constructor(
    options: ConstructorParameters<typeof RateLimiterSQLite>[0],
    read: (key: string, nowMs: number) => CountRow | undefined,
    wrote: () => void,
  ) {
    super(options);
    this.#read = read;
    this.#wrote = wrote;
  }

  async _upsert(rlKey: string, points: number, msDuration: number, forceExpire?: boolean): Promise<unknown> {
    this.#wrote();
    try {
      return await sqliteOwn._upsert.call(this, rlKey, points, msDuration, forceExpire);
    } finally {
      this.#wrote();
    }
  }

  async _delete(rlKey: string): Promise<unknown> {
    this.#wrote();
    try {
      return await sqliteOwn._delete.call(this, rlKey);
    } finally {
      this.#wrote();
    }
  }

  _get(rlKey: string): Promise<CountRow | null> {
    try {
      return Promise.resolve(this.#read(rlKey, Date.now()) ?? null);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  _getRateLimiterRes(rlKey: string, changedPoints: number, row: { expire?: number | null }): RateLimiterRes {
    return noteWindow(sqliteOwn._getRateLimiterRes.call(this, rlKey, changedPoints, row), row.expire);
  }
}

/** The document RateLimiterMongo's write returned (older drivers wrapped it in `value`). */
type Returned = { expire?: Date | null } | { value: { expire?: Date | null } | null };

/**
 * RateLimiterMongo with the exact window, whose calls run as every other operation of the stores
 * do (`run`: only once prepared, failures mapped).
 */
export class MongoLimiter extends RateLimiterMongo {
  readonly #run: Runner;
  constructor(options: ConstructorParameters<typeof RateLimiterMongo>[0], run: Runner) {
    super(options);
    this.#run = run;
  }
  _getRateLimiterRes(rlKey: string, changedPoints: number, result: Returned): RateLimiterRes {
    const doc = 'value' in result ? result.value : result;
    return noteWindow(mongoOwn._getRateLimiterRes.call(this, rlKey, changedPoints, result), doc?.expire);
  }
  override consume(
    key: string | number,
    points?: number,
    options?: IRateLimiterMongoFunctionOptions,
  ): Promise<RateLimiterRes> {
    return this.#run(() => super.consume(key, points, options));
  }
  override get(key: string | number, options?: IRateLimiterMongoFunctionOptions): Promise<RateLimiterRes | null> {
    return this.#run(() => super.get(key, options));
  }
  override delete(key: string | number, options?: IRateLimiterMongoFunctionOptions): Promise<boolean> {
    return this.#run(() => super.delete(key, options));
  }
}
