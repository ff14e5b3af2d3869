import { sqliteActivityStore } from './activity-store.sqlite.ts';
import { sqliteAuthorizationCodeStore } from './authorization-code-store.sqlite.ts';
import { sqliteAccountStore } from './account-store.sqlite.ts';
import { sqliteConsentStore } from './consent-store.sqlite.ts';
import { sqliteConsentTicketStore } from './consent-ticket-store.sqlite.ts';
import { sqliteEmployeeStore } from './employee-store.sqlite.ts';
import { sqliteKeyStore } from './key-store.sqlite.ts';
import { sqliteLoginThrottleStore } from './login-throttle-store.sqlite.ts';
import { sqliteRefreshTokenStore } from './refresh-token-store.sqlite.ts';
import { sqliteRevocationStore } from './revocation-store.sqlite.ts';
import { sqliteSessionStore } from './session-store.sqlite.ts';
import { openDatabase, type OpenOptions } from './sqlite.ts';
import type { Stores } from './stores.ts';
import { sqliteUserStore } from './user-store.sqlite.ts';

/** Every store on `dir/troupe.db` (or in memory for `':memory:'`), migrated on open. */
export function openSqliteStores(dir: string, options: OpenOptions): Stores {
  const db = openDatabase(dir, options);
  const ping = db.prepare('select 1');
  const accounts = sqliteAccountStore(db);
  return {
    kind: 'SQLite',
    accounts,
    refreshTokens: sqliteRefreshTokenStore(db),
    revocations: sqliteRevocationStore(db),
    users: sqliteUserStore(db),
    activity: sqliteActivityStore(db),
    employees: sqliteEmployeeStore(db),
    throttle: sqliteLoginThrottleStore(db),
    keys: { access: sqliteKeyStore(db, 'access'), id_token: sqliteKeyStore(db, 'id_token') },
    codes: sqliteAuthorizationCodeStore(db),
    consents: sqliteConsentStore(db),
    tickets: sqliteConsentTicketStore(db),
    sessions: sqliteSessionStore(db),
    prepare: (load) => load(accounts),
    ping: async () => {
      ping.get();
    },
    close: async () => {
      db.close();
    },
  };
}
