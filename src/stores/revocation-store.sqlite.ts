import type { Db } from './sqlite.ts';
import type { Revocation, RevocationStore } from './revocation-store.ts';

interface Row {
  seq: number;
  kind: 'token' | 'login';
  id: string;
  expiresAt: number;
}

/**
 * SQLite adapter of {@link RevocationStore}. `changed` reads `PRAGMA data_version`, which changes
 * for a connection when any other connection (another process) commits to the file: a counter
 * read, no table read, so it can be asked on every request.
 */
export function sqliteRevocationStore(db: Db): RevocationStore {
  const insert = db.prepare<[string, string, number]>(
    'insert or ignore into revocations (kind, id, expires_at) values (?, ?, ?)',
  );
  const after = db.prepare<[number], Row>(
    'select seq, kind, id, expires_at as expiresAt from revocations where seq > ? order by seq',
  );
  const present = db
    .prepare<[string, string, number], number>(
      'select 1 from revocations where kind = ? and id = ? and expires_at >= ?',
    )
    .pluck();
  const purge = db.prepare<[number]>('delete from revocations where expires_at < ?');
  const dataVersion = db.prepare<[], number>('pragma data_version').pluck();
  let seen = -1;
  return {
    add: async (r) => {
      insert.run(r.kind, r.id, r.expiresAt);
    },
    has: async (kind, id, now) => present.get(kind, id, now) !== undefined,
    async since(cursor, now) {
      const rows = after.all(cursor);
      const revocations: Revocation[] = rows
        .filter((r) => r.expiresAt >= now)
        .map(({ kind, id, expiresAt }) => ({ kind, id, expiresAt }));
      return { revocations, cursor: rows.at(-1)?.seq ?? cursor };
    },
    changed() {
      const version = dataVersion.get() ?? 0;
      const changed = version !== seen;
      seen = version;
      return changed;
    },
    purgeExpired: async (now) => purge.run(now).changes,
  };
}
