import {
  SPENT_CODE_RETENTION_S,
  type AuthorizationCodeRecord,
  type AuthorizationCodeStore,
} from './authorization-code-store.ts';
import { grantFields, scopeColumn, writeTransaction, type Db, type GrantRow } from './sqlite.ts';

interface Row extends GrantRow {
  code_hash: string;
  redirect_uri: string;
  code_challenge: string | null;
  login_id: string;
  expires_at: number;
  used_at: number | null;
  nonce: string | null;
  auth_time: number | null;
}

const toRecord = (r: Row): AuthorizationCodeRecord => ({
  codeHash: r.code_hash,
  ...grantFields(r),
  redirectUri: r.redirect_uri,
  codeChallenge: r.code_challenge,
  loginId: r.login_id,
  nonce: r.nonce,
  authTime: r.auth_time,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
});

/** SQLite adapter of {@link AuthorizationCodeStore}: a spend is one write transaction, so one process wins it. */
export function sqliteAuthorizationCodeStore(db: Db): AuthorizationCodeStore {
  const insertRow = db.prepare<
    [
      string,
      string,
      string,
      string | null,
      string,
      string,
      string,
      number,
      number | null,
      number | null,
      string | null,
      number | null,
    ]
  >(
    `insert into authorization_codes
       (code_hash, client_id, redirect_uri, code_challenge, scope, username, login_id, expires_at,
        account_id, account_version, nonce, auth_time)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const findRow = db.prepare<[string], Row>('select * from authorization_codes where code_hash = ?');
  const markUsed = db.prepare<[number, string]>(
    'update authorization_codes set used_at = ? where code_hash = ? and used_at is null',
  );
  const purge = db.prepare<[number]>('delete from authorization_codes where expires_at < ?');
  const spend = writeTransaction(db, (hash: string, now: number): AuthorizationCodeRecord | undefined => {
    const row = findRow.get(hash);
    if (row?.used_at === null) markUsed.run(now, hash);
    return row && toRecord(row);
  });
  return {
    insert: async (r) => {
      insertRow.run(
        r.codeHash,
        r.clientId,
        r.redirectUri,
        r.codeChallenge,
        scopeColumn(r.scope),
        r.username,
        r.loginId,
        r.expiresAt,
        r.accountId,
        r.accountVersion,
        r.nonce,
        r.authTime,
      );
    },
    spend: async (hash, now) => spend(hash, now),
    purgeExpired: async (now) => purge.run(now - SPENT_CODE_RETENTION_S).changes,
  };
}
