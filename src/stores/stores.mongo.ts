import { mongoActivityStore } from './activity-store.mongo.ts';
import { ACTIVITY_INDEXES } from './activity-store.mongo-queries.ts';
import { AUTHORIZATION_CODE_INDEXES, mongoAuthorizationCodeStore } from './authorization-code-store.mongo.ts';
import { mongoAccountStore } from './account-store.mongo.ts';
import { CONSENT_INDEXES, mongoConsentStore } from './consent-store.mongo.ts';
import { CONSENT_TICKET_INDEXES, mongoConsentTicketStore } from './consent-ticket-store.mongo.ts';
import { accountsIn, CREDENTIAL_INDEXES, stamped, UNSTAMPED } from './account-store.mongo-queries.ts';
import { mongoEmployeeStore } from './employee-store.mongo.ts';
import { mongoKeyStore } from './key-store.mongo.ts';
import { mongoLoginThrottleStore } from './login-throttle-store.mongo.ts';
import { LOGIN_THROTTLE_INDEXES } from './login-throttle-store.mongo-queries.ts';
import { openMongo, type CollectionIndexes } from './mongo.ts';
import { mongoRefreshTokenStore } from './refresh-token-store.mongo.ts';
import { REFRESH_TOKEN_INDEXES } from './refresh-token-store.mongo-queries.ts';
import { mongoRevocationStore } from './revocation-store.mongo.ts';
import { REVOCATION_INDEXES } from './revocation-store.mongo-queries.ts';
import { SESSION_INDEXES, mongoSessionStore } from './session-store.mongo.ts';
import type { Stores } from './stores.ts';
import { epochSeconds } from '../security/epoch.ts';
import { mongoUserStore } from './user-store.mongo.ts';
import { USER_INDEXES } from './user-store.mongo-queries.ts';

/** Every collection's indexes, made by `prepare` (the employee adapter makes its own on first use). */
export const INDEXES: CollectionIndexes = {
  ...CREDENTIAL_INDEXES,
  ...REFRESH_TOKEN_INDEXES,
  ...REVOCATION_INDEXES,
  ...USER_INDEXES,
  ...ACTIVITY_INDEXES,
  ...LOGIN_THROTTLE_INDEXES,
  ...AUTHORIZATION_CODE_INDEXES,
  ...CONSENT_INDEXES,
  ...CONSENT_TICKET_INDEXES,
  ...SESSION_INDEXES,
};

export interface MongoStoreOptions {
  /** How often an instance reads the revocations others added (`security.revocation-sync-ms`). */
  readonly revocationSyncMs: number;
  /** Bound of one store operation, ms (`mongodb.operation-timeout-ms`). */
  readonly operationTimeoutMs?: number;
}

/**
 * Every store in the MongoDB database named by `uri`: one client for the process. No I/O until
 * `prepare` (the indexes, then the initial data); until it has succeeded, every operation of the
 * stores is refused as unavailable, so that nothing is written before the unique indexes exist.
 */
export function openMongoStores(uri: string, options: MongoStoreOptions): Stores {
  const mongo = openMongo(
    uri,
    options.operationTimeoutMs === undefined ? {} : { operationTimeoutMs: options.operationTimeoutMs },
  );
  const { db, run } = mongo;
  return {
    kind: 'MongoDB',
    accounts: mongoAccountStore(db, run),
    refreshTokens: mongoRefreshTokenStore(db, run),
    revocations: mongoRevocationStore(db, options.revocationSyncMs, run),
    users: mongoUserStore(mongo),
    activity: mongoActivityStore(db, run),
    employees: mongoEmployeeStore(db, run),
    throttle: mongoLoginThrottleStore(db, run),
    keys: {
      access: mongoKeyStore(db, options.revocationSyncMs, 'access', run),
      id_token: mongoKeyStore(db, options.revocationSyncMs, 'id_token', run),
    },
    codes: mongoAuthorizationCodeStore(db, run),
    consents: mongoConsentStore(db, run),
    tickets: mongoConsentTicketStore(db, run),
    sessions: mongoSessionStore(db, run),
    async prepare(load) {
      // One bounded operation per collection: a large collection may take a while to check.
      for (const [name, indexes] of Object.entries(INDEXES))
        await mongo.runPreparing(() => db.collection(name).createIndexes([...indexes]));
      // Accounts saved before `updatedAt` was kept get this time, as SQLite's migration 021 gives.
      await mongo.runPreparing(() => accountsIn(db).updateMany(UNSTAMPED, stamped(epochSeconds())));
      await load(mongoAccountStore(db, mongo.runPreparing));
      mongo.opened();
    },
    ping: mongo.ping,
    close: mongo.close,
  };
}
