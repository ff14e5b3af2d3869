/** Opens the SQLite database, sets its pragmas and applies the versioned migrations in order. */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export type Db = Database.Database;

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface OpenOptions {
  /** FULL survives power loss; NORMAL (with WAL) survives a process crash only. */
  readonly synchronous: 'FULL' | 'NORMAL';
  /** How long opening keeps retrying while another process holds a lock, ms (default 30 s). */
  readonly openTimeoutMs?: number;
}

/** How long one statement waits for another connection's lock (SQLite's busy timeout), ms. */
const BUSY_TIMEOUT_MS = 5000;
const DEFAULT_OPEN_TIMEOUT_MS = 30_000;

/** Modes of what holds every BCrypt hash: the data directory when created, and the database files. */
export const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/** A database made by an older version, or by hand, with wider modes: narrowed to the owner's. */
function keepPrivate(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(f) && (statSync(f).mode & 0o077) !== 0) chmodSync(f, PRIVATE_FILE);
  }
}

const isBusy = (error: unknown): boolean =>
  error instanceof Database.SqliteError && /^SQLITE_(BUSY|LOCKED)/.test(error.code);

/** Blocks this thread for `ms`: opening happens once, at start-up, before anything is served. */
const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * Opens (creating if needed) `dir/troupe.db`, or an in-memory database for `':memory:'`. Another
 * process may hold a lock for longer than the busy timeout (a checkpoint, a migration, a long
 * write), or SQLite may answer SQLITE_BUSY without waiting (switching to WAL, recovering a WAL
 * left by a killed process): the whole open is tried again, with a growing pause, until
 * `openTimeoutMs` has passed; only then does the error reach the caller.
 */
export function openDatabase(dir: string, options: OpenOptions): Db {
  const file = dir === ':memory:' ? ':memory:' : join(dir, 'troupe.db');
  if (dir !== ':memory:') {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
    // SQLite gives its -wal and -shm files the database file's mode: create that one private.
    writeFileSync(file, '', { flag: 'a', mode: PRIVATE_FILE });
  }
  const deadline = Date.now() + (options.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS);
  for (let attempt = 1; ; attempt++) {
    const left = deadline - Date.now();
    let db: Db | undefined;
    try {
      db = new Database(file, { timeout: Math.max(0, Math.min(BUSY_TIMEOUT_MS, left)) });
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous}`);
      db.pragma('foreign_keys = ON');
      migrate(db);
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      if (file !== ':memory:') keepPrivate(file);
      return db;
    } catch (error) {
      db?.close();
      const wait = Math.min(50 * 2 ** attempt, 1000, deadline - Date.now());
      if (!isBusy(error) || wait <= 0) throw error;
      pause(wait);
    }
  }
}

/**
 * A write transaction that takes the write lock at BEGIN (`BEGIN IMMEDIATE`). Several processes
 * share the database file: a deferred transaction that reads and then writes fails at once with
 * SQLITE_BUSY when another process committed in between (the busy timeout does not apply to that
 * upgrade), while an immediate one waits for the lock within the busy timeout and then sees the
 * latest rows.
 */
export function writeTransaction<A extends unknown[], R>(db: Db, fn: (...args: A) => R): (...args: A) => R {
  const transaction = db.transaction(fn);
  return (...args) => transaction.immediate(...args);
}

/** The columns of a row that keeps its times and a version (employees, user_data). */
export interface VersionedRow {
  /** ISO-8601. */
  created_at: string;
  /** ISO-8601. */
  updated_at: string;
  /** 1 on insert, + 1 on every update. */
  version: number;
}

/** A versioned row's times and version, under the names its record gives them. */
export const versionFields = (r: VersionedRow) => ({
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  version: r.version,
});

/** A list of scopes as a column holds it: space-separated, the empty string for none. */
export const scopeColumn = (scopes: readonly string[]): string => scopes.join(' ');

/** The scopes a {@link scopeColumn} holds. */
export const scopeList = (column: string): string[] => (column === '' ? [] : column.split(' '));

/** The columns an authorization code and a refresh token share: the client, account and scope of their login. */
export interface GrantRow {
  client_id: string;
  username: string;
  scope: string;
  account_id: number | null;
  account_version: number | null;
}

/** A {@link GrantRow}'s columns under the names their records give them. */
export const grantFields = (r: GrantRow) => ({
  clientId: r.client_id,
  username: r.username,
  scope: scopeList(r.scope),
  accountId: r.account_id,
  accountVersion: r.account_version,
});

/** One reader of `PRAGMA data_version` per connection, shared by every watch on it. */
const dataVersions = new WeakMap<Db, () => number>();

function dataVersionOf(db: Db): () => number {
  const known = dataVersions.get(db);
  if (known) return known;
  const read = db.prepare<[], number>('pragma data_version').pluck();
  let now: number | undefined;
  const forget = (): void => {
    now = undefined;
  };
  const version = (): number => {
    if (now === undefined) {
      now = read.get() ?? 0;
      queueMicrotask(forget);
    }
    return now;
  };
  dataVersions.set(db, version);
  return version;
}

/**
 * Whether another connection (another process) committed to the file since this watch last
 * looked; true on its first call. `PRAGMA data_version` is a counter read, no table read, but still
 * a read transaction (a shared lock taken and dropped): the watches on one connection share one
 * read until the microtasks queued when it was made have run. A bearer check asks the revocations
 * and the key set one after the other without yielding, so a request pays one read, not one per
 * watch. Why a shared read is as fresh as a read of its own: no socket is read while JavaScript
 * runs its microtasks, so every request that uses a read had already arrived when it was made, and
 * a revocation acknowledged to a client before that client sent its request was committed before
 * the read. This process's own commits do not move the counter, and its own caches learn of them
 * as it makes them.
 */
export function changeWatch(db: Db): () => boolean {
  const version = dataVersionOf(db);
  let seen = -1;
  return () => {
    const now = version();
    const changed = now !== seen;
    seen = now;
    return changed;
  };
}

interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

function migrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((name) => ({
      version: Number(name.slice(0, 3)),
      name,
      sql: readFileSync(join(MIGRATIONS_DIR, name), 'utf8'),
    }));
}

/**
 * Applies every migration newer than `PRAGMA user_version`, each in its own write transaction
 * that reads the version again under the lock: processes starting together apply each migration once.
 */
export function migrate(db: Db): number {
  const apply = writeTransaction(db, (m: Migration): void => {
    if ((db.pragma('user_version', { simple: true }) as number) >= m.version) return;
    db.exec(m.sql);
    db.pragma(`user_version = ${m.version}`);
  });
  for (const m of migrations()) {
    if ((db.pragma('user_version', { simple: true }) as number) < m.version) apply(m);
  }
  return db.pragma('user_version', { simple: true }) as number;
}
