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

/** Opens (creating if needed) `dir/troupe.db`, or an in-memory database for `':memory:'`. */
export function openDatabase(dir: string, options: OpenOptions): Db {
  const file = dir === ':memory:' ? ':memory:' : join(dir, 'troupe.db');
  if (dir !== ':memory:') mkdirSync(dir, { recursive: true });
  const db = new Database(file, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous}`);
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

interface Migration { readonly version: number; readonly name: string; readonly sql: string }

function migrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ version: Number(name.slice(0, 3)), name, sql: readFileSync(join(MIGRATIONS_DIR, name), 'utf8') }));
}

/** Applies every migration newer than `PRAGMA user_version`, each in its own transaction. */
export function migrate(db: Db): number {
  let current = db.pragma('user_version', { simple: true }) as number;
  for (const m of migrations()) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
    current = m.version;
  }
  return current;
}
