import type { Db } from './sqlite.ts';
import type { RevocationStore, Revoked } from './revocation-store.ts';

/** SQLite adapter of {@link RevocationStore}. */
export function sqliteRevocationStore(db: Db): RevocationStore {
  const insert = db.prepare<[string, number]>('insert or ignore into revoked_access_tokens (jti, expires_at) values (?, ?)');
  // A login revoked twice keeps the later bound: tokens issued in between live that long.
  const insertLogin = db.prepare<[string, number]>(
    'insert into revoked_logins (login_id, expires_at) values (?, ?) on conflict (login_id) do update set expires_at = max(expires_at, excluded.expires_at)');
  const live = db.prepare<[number], Revoked>('select jti as id, expires_at as expiresAt from revoked_access_tokens where expires_at >= ?');
  const liveLogins = db.prepare<[number], Revoked>('select login_id as id, expires_at as expiresAt from revoked_logins where expires_at >= ?');
  const purgeTokens = db.prepare<[number]>('delete from revoked_access_tokens where expires_at < ?');
  const purgeLogins = db.prepare<[number]>('delete from revoked_logins where expires_at < ?');
  return {
    add: (t) => { insert.run(t.id, t.expiresAt); },
    addLogin: (l) => { insertLogin.run(l.id, l.expiresAt); },
    live: (now) => live.all(now),
    liveLogins: (now) => liveLogins.all(now),
    purgeExpired: (now) => purgeTokens.run(now).changes + purgeLogins.run(now).changes,
  };
}
