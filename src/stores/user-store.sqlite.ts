import Database from 'better-sqlite3';
import type { ObjectIdString } from '../ids.ts';
import { versionFields, writeTransaction, type Db, type VersionedRow } from './sqlite.ts';
import type { UserChanges, UserRecord, UserStore, WriteResult } from './user-store.ts';

interface Row extends VersionedRow {
  id: string;
  name: string;
  email: string;
}

const toUser = (r: Row): UserRecord => ({
  id: r.id as ObjectIdString,
  name: r.name,
  email: r.email,
  ...versionFields(r),
});

const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';

/** A unique violation (the case-insensitive email index) is an expected outcome, also on a race. */
function orEmailTaken(write: () => WriteResult): WriteResult {
  try {
    return write();
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, reason: 'email_taken' };
    throw error;
  }
}

/** SQLite adapter of {@link UserStore}; activities go with their user through `on delete cascade`. */
export function sqliteUserStore(db: Db): UserStore {
  const byId = db.prepare<[string], Row>('select * from user_data where id = ?');
  const insert = db.prepare<[string, string, string, string, string], Row>(
    'insert into user_data (id, name, email, created_at, updated_at, version) values (?, ?, ?, ?, ?, 1) returning *',
  );
  const update = db.prepare<
    [{ id: string; version: number; name: string | null; email: string | null; updatedAt: string }],
    Row
  >(
    `update user_data set name = coalesce(@name, name), email = coalesce(@email, email), updated_at = @updatedAt, version = version + 1
     where id = @id and version = @version returning *`,
  );
  const remove = db.prepare<[string], Row>('delete from user_data where id = ? returning *');

  const conditionalUpdate = writeTransaction(
    db,
    (id: ObjectIdString, version: number, changes: UserChanges): WriteResult => {
      const row = update.get({
        id,
        version,
        name: changes.name ?? null,
        email: changes.email ?? null,
        updatedAt: changes.updatedAt,
      });
      if (row) return { ok: true, user: toUser(row) };
      return { ok: false, reason: byId.get(id) ? 'version_conflict' : 'not_found' };
    },
  );

  return {
    async find(id) {
      const row = byId.get(id);
      return row && toUser(row);
    },
    async insert(user) {
      return orEmailTaken(() => {
        const row = insert.get(user.id, user.name, user.email, user.createdAt, user.updatedAt);
        if (!row) throw new Error('user insert returned no row');
        return { ok: true, user: toUser(row) };
      });
    },
    async update(id, expectedVersion, changes) {
      return orEmailTaken(() => conditionalUpdate(id, expectedVersion, changes));
    },
    async delete(id) {
      const row = remove.get(id);
      return row && toUser(row);
    },
  };
}
