import type { Db } from './sqlite.ts';
import type { RevocationStore, RevokedToken } from './revocation-store.ts';

/** SQLite adapter of {@link RevocationStore}. */
export function sqliteRevocationStore(db: Db): RevocationStore {
  const insert = db.prepare<[string, number]>('insert or ignore into revoked_access_tokens (jti, expires_at) values (?, ?)');
  const live = db.prepare<[number], RevokedToken>('select jti, expires_at as expiresAt from revoked_access_tokens where expires_at >= ?');
  const purge = db.prepare<[number]>('delete from revoked_access_tokens where expires_at < ?');
  return {
    add: (t) => { insert.run(t.jti, t.expiresAt); },
    live: (now) => live.all(now),
    purgeExpired: (now) => purge.run(now).changes,
  };
}
