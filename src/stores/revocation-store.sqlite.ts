import { changeWatch, writeTransaction, type Db } from './sqlite.ts';
import type { Revocation, RevocationStore } from './revocation-store.ts';

interface Row {
  seq: number;
  kind: Revocation['kind'];
  id: string;
  expiresAt: number;
  belowVersion: number | null;
}

/**
 * SQLite adapter of {@link RevocationStore}. `changed` reads `PRAGMA data_version`, which changes
 * for a connection when any other connection (another process) commits to the file: a counter
 * read, no table read, so it can be asked on every request.
 */
export function sqliteRevocationStore(db: Db): RevocationStore {
  const insert = db.prepare<[string, string, number, string | null, number | null]>(
    'insert into revocations (kind, id, expires_at, login_id, below_version) values (?, ?, ?, ?, ?)',
  );
  const ofLogin = db
    .prepare<[string, number], number>(
      "select count(*) from revocations where login_id = ? and kind = 'token' and expires_at >= ?",
    )
    .pluck();
  const existing = db.prepare<[string, string], { expiresAt: number; belowVersion: number | null }>(
    'select expires_at as expiresAt, below_version as belowVersion from revocations where kind = ? and id = ?',
  );
  const remove = db.prepare<[string, string]>('delete from revocations where kind = ? and id = ?');
  // A later expiry is a new row (a new seq), so that every reader's cursor reaches it.
  const add = writeTransaction(db, (r: Revocation): void => {
    const current = existing.get(r.kind, r.id);
    const belowVersion = Math.max(r.belowVersion ?? -1, current?.belowVersion ?? -1);
    if (current && current.expiresAt >= r.expiresAt && (current.belowVersion ?? -1) >= belowVersion) return;
    remove.run(r.kind, r.id);
    const expiresAt = Math.max(r.expiresAt, current?.expiresAt ?? 0);
    insert.run(r.kind, r.id, expiresAt, r.loginId ?? null, belowVersion < 0 ? null : belowVersion);
  });
  // The newest row always comes too, expired or not: it moves the cursor past what was skipped.
  const after = db.prepare<[number, number], Row>(
    `select seq, kind, id, expires_at as expiresAt, below_version as belowVersion from revocations
     where seq > ? and (expires_at >= ? or seq = (select max(seq) from revocations))
     order by seq`,
  );
  const present = db
    .prepare<[string, string, number], number>(
      'select 1 from revocations where kind = ? and id = ? and expires_at >= ?',
    )
    .pluck();
  const purge = db.prepare<[number]>('delete from revocations where expires_at < ?');
  return {
    add: async (r) => add(r),
    has: async (kind, id, now) => present.get(kind, id, now) !== undefined,
    async since(cursor, now) {
      const rows = after.all(cursor, now);
      const revocations: Revocation[] = rows
        .filter((r) => r.expiresAt >= now)
        .map(({ kind, id, expiresAt, belowVersion }) => ({
          kind,
          id,
          expiresAt,
          ...(belowVersion === null ? {} : { belowVersion }),
        }));
      return { revocations, cursor: rows.at(-1)?.seq ?? cursor };
    },
    changed: changeWatch(db),
    seesEveryWrite: true,
    tokensOfLogin: async (loginId, now) => ofLogin.get(loginId, now) ?? 0,
    purgeExpired: async (now) => purge.run(now).changes,
  };
}
