import { writeTransaction, type Db } from './sqlite.ts';
import type { RefreshTokenRecord, RefreshTokenStore } from './refresh-token-store.ts';

interface Row {
  token_hash: string;
  family_id: string;
  client_id: string;
  username: string;
  scope: string;
  issued_at: number;
  expires_at: number;
  used_at: number | null;
  revoked_at: number | null;
  access_expires_at: number | null;
}

const toRecord = (r: Row): RefreshTokenRecord => ({
  tokenHash: r.token_hash,
  familyId: r.family_id,
  clientId: r.client_id,
  username: r.username,
  scope: r.scope === '' ? [] : r.scope.split(' '),
  issuedAt: r.issued_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  revokedAt: r.revoked_at,
  accessExpiresAt: r.access_expires_at,
});

/** SQLite adapter of {@link RefreshTokenStore}. */
export function sqliteRefreshTokenStore(db: Db): RefreshTokenStore {
  const insertRow = db.prepare<[string, string, string, string, string, number, number, number | null]>(
    `insert into refresh_tokens
       (token_hash, family_id, client_id, username, scope, issued_at, expires_at, access_expires_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const horizon = db
    .prepare<[string], number | null>(
      `select case when count(*) > 0 and count(*) = count(access_expires_at) then max(access_expires_at) end
       from refresh_tokens where family_id = ?`,
    )
    .pluck();
  const findRow = db.prepare<[string], Row>('select * from refresh_tokens where token_hash = ?');
  const markUsed = db.prepare<[number, string]>(
    'update refresh_tokens set used_at = ? where token_hash = ? and used_at is null and revoked_at is null',
  );
  const revoke = db.prepare<[number, string]>(
    'update refresh_tokens set revoked_at = ? where family_id = ? and revoked_at is null',
  );
  const purge = db.prepare<[number]>('delete from refresh_tokens where expires_at < ?');

  const insert = (r: RefreshTokenRecord): void => {
    insertRow.run(
      r.tokenHash,
      r.familyId,
      r.clientId,
      r.username,
      r.scope.join(' '),
      r.issuedAt,
      r.expiresAt,
      r.accessExpiresAt,
    );
  };
  const rotate = writeTransaction(db, (oldHash: string, next: RefreshTokenRecord, at: number): boolean => {
    if (markUsed.run(at, oldHash).changes !== 1) return false;
    insert(next);
    return true;
  });

  return {
    insert: async (record) => insert(record),
    find: async (hash) => {
      const row = findRow.get(hash);
      return row && toRecord(row);
    },
    rotate: async (oldHash, next, at) => rotate(oldHash, next, at),
    accessHorizon: async (familyId) => horizon.get(familyId) ?? undefined,
    revokeFamily: async (familyId, at) => revoke.run(at, familyId).changes,
    purgeExpired: async (now) => purge.run(now).changes,
  };
}
