/**
 * Fault injection into a running server, from outside: a second connection to its SQLite file adds
 * a trigger that aborts every insert into a table, so the store the actor calls throws as a broken
 * disk would. The server itself carries no test hook; removing the trigger heals it.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** Every table of service state, for tests that check what a request wrote (or did not). */
export const SERVICE_TABLES = [
  'employees',
  'user_data',
  'user_activity',
  'users',
  'user_roles',
  'roles',
  'refresh_tokens',
  'revocations',
] as const;

export interface Fault {
  /** Removes the trigger: the next write to the table succeeds again. */
  heal(): void;
}

/** Every insert into `table` fails with a SQLite error until {@link Fault.heal}. */
export function breakInserts(dataDir: string, table: string): Fault {
  const db = new Database(join(dataDir, 'troupe.db'), { timeout: 5000 });
  const name = `injected_fault_${table}`;
  db.exec(`create trigger ${name} before insert on ${table} begin select raise(abort, 'injected fault'); end`);
  return {
    heal() {
      db.exec(`drop trigger if exists ${name}`);
      db.close();
    },
  };
}

/** Reads rows straight from the server's database (WAL: a reader never blocks its writers). */
export function openReader(dataDir: string): Database.Database {
  return new Database(join(dataDir, 'troupe.db'), { readonly: true, fileMustExist: true });
}
