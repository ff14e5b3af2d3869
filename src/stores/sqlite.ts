/** Opens the SQLite database, sets its pragmas and applies the versioned migrations in order. */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

export type Db = Database.Database;

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface OpenOptions {
  /** FULL survives power loss; NORMAL (with WAL) survives a process crash only. */
  readonly synchronous: 'FULL' | 'NORMAL';
}

const BUSY_TIMEOUT_MS = 5000;

/**
 * Switches a new database file to WAL. The switch needs the file to itself for a moment, and
 * SQLite answers SQLITE_BUSY at once rather than waiting when another process is opening or
 * writing the same new file (several processes starting together): try again, within the busy timeout.
 */
function walMode(db: Db): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** Opens (creating if needed) `dir/troupe.db`, or an in-memory database for `':memory:'`. */
export function openDatabase(dir: string, options: OpenOptions): Db {
  const file = dir === ':memory:' ? ':memory:' : join(dir, 'troupe.db');
  if (dir !== ':memory:') mkdirSync(dir, { recursive: true });
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  walMode(db);
  db.pragma(`synchronous = ${options.synchronous}`);
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
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
