import type { SessionRecord, SessionStore } from './session-store.ts';
import type { Db } from './sqlite.ts';

interface Row {
  id_hash: string;
  account_id: number;
  account_version: number;
  auth_time: number;
  created_at: number;
  expires_at: number;
  ended_at: number | null;
}

const toRecord = (r: Row): SessionRecord => ({
  idHash: r.id_hash,
  accountId: r.account_id,
  accountVersion: r.account_version,
  authTime: r.auth_time,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  endedAt: r.ended_at,
});

/**
 * SQLite adapter of {@link SessionStore}: table `sessions`, keyed by the hash of the cookie's value.
 * Each operation is one statement, so processes on the file see each other's writes at once.
 */
export function sqliteSessionStore(db: Db): SessionStore {
  const insert = db.prepare<[string, number, number, number, number, number, number | null]>(
    'insert into sessions (id_hash, account_id, account_version, auth_time, created_at, expires_at, ended_at) values (?, ?, ?, ?, ?, ?, ?)',
  );
  const find = db.prepare<[string], Row>('select * from sessions where id_hash = ?');
  const end = db.prepare<[number, string]>('update sessions set ended_at = ? where id_hash = ? and ended_at is null');
  const endForAccount = db.prepare<[number, number, number]>(
    'update sessions set ended_at = ? where account_id = ? and ended_at is null and expires_at > ?',
  );
  const list = db.prepare<[number, number], Row>(
    'select * from sessions where account_id = ? and ended_at is null and expires_at > ? order by created_at desc, id_hash',
  );
  const purge = db.prepare<[number, number]>('delete from sessions where expires_at < ? or ended_at < ?');
  return {
    insert: async (r) => {
      insert.run(r.idHash, r.accountId, r.accountVersion, r.authTime, r.createdAt, r.expiresAt, r.endedAt);
    },
    find: async (idHash) => {
      const row = find.get(idHash);
      return row === undefined ? undefined : toRecord(row);
    },
    end: async (idHash, at) => end.run(at, idHash).changes === 1,
    endForAccount: async (accountId, at) => endForAccount.run(at, accountId, at).changes,
    listForAccount: async (accountId, at) => list.all(accountId, at).map(toRecord),
    purgeExpired: async (now) => purge.run(now, now).changes,
  };
}
