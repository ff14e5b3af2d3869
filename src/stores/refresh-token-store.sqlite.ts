import { grantFields, scopeColumn, writeTransaction, type Db, type GrantRow } from './sqlite.ts';
import {
  REVOKED_RETENTION_S,
  SPENT_WINDOW,
  type LoginRecord,
  type RefreshTokenRecord,
  type RefreshTokenStore,
  type Rotation,
} from './refresh-token-store.ts';

interface Row extends GrantRow {
  token_hash: string;
  /** The login's id: the stored name is kept for existing data. */
  family_id: string;
  issued_at: number;
  expires_at: number;
  used_at: number | null;
  revoked_at: number | null;
  access_expires_at: number | null;
  generation: number;
  auth_time: number | null;
}

const toRecord = (r: Row): RefreshTokenRecord => ({
  tokenHash: r.token_hash,
  loginId: r.family_id,
  ...grantFields(r),
  issuedAt: r.issued_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  revokedAt: r.revoked_at,
  accessExpiresAt: r.access_expires_at,
  generation: r.generation,
  authTime: r.auth_time,
});

/** SQLite adapter of {@link RefreshTokenStore}. */
export function sqliteRefreshTokenStore(db: Db): RefreshTokenStore {
  const insertRow = db.prepare<
    [
      string,
      string,
      string,
      string,
      string,
      number,
      number,
      number | null,
      number,
      number | null,
      number | null,
      number | null,
    ]
  >(
    `insert into refresh_tokens
       (token_hash, family_id, client_id, username, scope, issued_at, expires_at, access_expires_at, generation,
        account_id, account_version, auth_time)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The accounts live in the same database: a login is written only while its account is current.
  const accountAt = db
    .prepare<[number, number], number>('select 1 from users where id = ? and security_version = ? and enabled = 1')
    .pluck();
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
  const purge = db.prepare<[number, number]>('delete from refresh_tokens where expires_at < ? or revoked_at < ?');
  const pruneSpent = db.prepare<[string, string, number]>(
    `delete from refresh_tokens where family_id = ? and used_at is not null and token_hash not in
       (select token_hash from refresh_tokens where family_id = ? and used_at is not null
        order by generation desc limit ?)`,
  );
  const logins = db.prepare<[number, number], LoginRecord>(
    `select t.family_id as loginId, t.client_id as clientId, t.issued_at as refreshedAt, t.expires_at as expiresAt,
       (select min(f.issued_at) from refresh_tokens f where f.family_id = t.family_id) as createdAt
     from refresh_tokens t
     where t.account_id = ? and t.used_at is null and t.revoked_at is null and t.expires_at > ?
     order by t.issued_at, t.token_hash`,
  );
  const live = db
    .prepare<[number, number], string>(
      `select family_id from refresh_tokens
       where account_id = ? and used_at is null and revoked_at is null and expires_at > ?
       order by issued_at, token_hash`,
    )
    .pluck();

  const insert = (r: RefreshTokenRecord): void => {
    insertRow.run(
      r.tokenHash,
      r.loginId,
      r.clientId,
      r.username,
      scopeColumn(r.scope),
      r.issuedAt,
      r.expiresAt,
      r.accessExpiresAt,
      r.generation,
      r.accountId,
      r.accountVersion,
      r.authTime,
    );
  };
  /** Whether a record naming an account may be written: the account is enabled at its version. */
  const current = (r: RefreshTokenRecord): boolean =>
    r.accountId === null || (r.accountVersion !== null && accountAt.get(r.accountId, r.accountVersion) !== undefined);
  const insertCurrent = writeTransaction(db, (r: RefreshTokenRecord): boolean => {
    if (!current(r)) return false;
    insert(r);
    return true;
  });
  const rotate = writeTransaction(db, (oldHash: string, next: RefreshTokenRecord, at: number): Rotation => {
    const old = findRow.get(oldHash);
    if (!old || old.used_at !== null) return 'spent';
    // Revoked since it was read (its login ended): read again, and answered as revoked.
    if (old.revoked_at !== null) return 'stale';
    if (old.account_id !== next.accountId || old.account_version !== next.accountVersion || !current(next))
      return 'stale';
    if (markUsed.run(at, oldHash).changes !== 1) return 'spent';
    insert(next);
    pruneSpent.run(next.loginId, next.loginId, SPENT_WINDOW);
    return 'rotated';
  });

  return {
    insert: async (record) => insertCurrent(record),
    find: async (hash) => {
      const row = findRow.get(hash);
      return row && toRecord(row);
    },
    rotate: async (oldHash, next, at) => rotate(oldHash, next, at),
    accessHorizon: async (loginId) => horizon.get(loginId) ?? undefined,
    revokeLogin: async (loginId, at) => revoke.run(at, loginId).changes,
    liveLogins: async (accountId, now) => live.all(accountId, now),
    loginsOf: async (accountId, now) => logins.all(accountId, now),
    purgeExpired: async (now) => purge.run(now, now - REVOKED_RETENTION_S).changes,
  };
}
