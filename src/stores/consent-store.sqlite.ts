import { unionOf, type ConsentRecord, type ConsentStore } from './consent-store.ts';
import { scopeColumn, scopeList, writeTransaction, type Db } from './sqlite.ts';

interface Row {
  account_id: number;
  client_id: string;
  scopes: string;
  granted_at: number;
  updated_at: number;
}

const toRecord = (r: Row): ConsentRecord => ({
  accountId: r.account_id,
  clientId: r.client_id,
  scopes: scopeList(r.scopes),
  grantedAt: r.granted_at,
  updatedAt: r.updated_at,
});

/** SQLite adapter of {@link ConsentStore}: table `consents`, deleted with its account (a foreign key). */
export function sqliteConsentStore(db: Db): ConsentStore {
  const findRow = db.prepare<[number, string], Row>('select * from consents where account_id = ? and client_id = ?');
  const listRows = db.prepare<[number], Row>('select * from consents where account_id = ? order by client_id');
  const accountExists = db.prepare<[number], { n: number }>('select 1 as n from users where id = ?');
  const upsert = db.prepare<[number, string, string, number, number]>(
    `insert into consents (account_id, client_id, scopes, granted_at, updated_at) values (?, ?, ?, ?, ?)
     on conflict (account_id, client_id) do update set scopes = excluded.scopes, updated_at = excluded.updated_at`,
  );
  const remove = db.prepare<[number, string]>('delete from consents where account_id = ? and client_id = ?');
  // One write transaction: two grants at once (two processes) each add to what the other wrote.
  const grant = writeTransaction(
    db,
    (accountId: number, clientId: string, scopes: readonly string[], at: number): ConsentRecord | undefined => {
      if (!accountExists.get(accountId)) return undefined;
      const before = findRow.get(accountId, clientId);
      const union = unionOf(before ? toRecord(before).scopes : [], scopes);
      upsert.run(accountId, clientId, scopeColumn(union), before?.granted_at ?? at, at);
      const after = findRow.get(accountId, clientId);
      return after && toRecord(after);
    },
  );
  return {
    find: async (accountId, clientId) => {
      const row = findRow.get(accountId, clientId);
      return row && toRecord(row);
    },
    grant: async (accountId, clientId, scopes, at) => grant(accountId, clientId, scopes, at),
    list: async (accountId) => listRows.all(accountId).map(toRecord),
    withdraw: async (accountId, clientId) => remove.run(accountId, clientId).changes > 0,
  };
}
