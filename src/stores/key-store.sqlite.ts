import type { KeyAlg, KeyStore } from './key-store.ts';
import { changeWatch, writeTransaction, type Db } from './sqlite.ts';

interface Row {
  kid: string;
  alg: KeyAlg;
  secret: string;
  createdAt: number;
  activatesAt: number;
  removedAt: number | null;
  createdBy: string;
  removedBy: string | null;
}

/**
 * SQLite adapter of {@link KeyStore}: table `signing_keys`, replaced in one `BEGIN IMMEDIATE`
 * transaction per change. `changed` reads `PRAGMA data_version`, which changes for this connection
 * when another connection (another process) commits: a counter read, cheap enough for every request.
 * The database file is the owner's alone (`sqlite.ts`), and so are the private keys in it.
 */
export function sqliteKeyStore(db: Db): KeyStore {
  const all = db.prepare<[], Row>(
    `select kid, alg, secret, created_at as createdAt, activates_at as activatesAt, removed_at as removedAt,
            created_by as createdBy, removed_by as removedBy
       from signing_keys`,
  );
  const clear = db.prepare('delete from signing_keys');
  const insert = db.prepare<[string, string, string, number, number, number | null, string, string | null]>(
    `insert into signing_keys (kid, alg, secret, created_at, activates_at, removed_at, created_by, removed_by)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return {
    read: async () => all.all(),
    async update(change) {
      const apply = writeTransaction(db, () => {
        const current = all.all();
        const next = change(current);
        if (next.records === current) return next.result;
        clear.run();
        for (const r of next.records)
          insert.run(r.kid, r.alg, r.secret, r.createdAt, r.activatesAt, r.removedAt, r.createdBy, r.removedBy);
        return next.result;
      });
      return apply();
    },
    changed: changeWatch(db),
  };
}
