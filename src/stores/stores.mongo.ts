import { mongoActivityStore } from './activity-store.mongo.ts';
import { mongoAuthorizationCodeStore } from './authorization-code-store.mongo.ts';
import { mongoCredentialStore } from './credential-store.mongo.ts';
import { mongoEmployeeStore } from './employee-store.mongo.ts';
import { mongoKeyStore } from './key-store.mongo.ts';
import { mongoLoginThrottleStore } from './login-throttle-store.mongo.ts';
import { openMongo } from './mongo.ts';
import { INDEXES } from './mongo-queries.ts';
import { mongoRefreshTokenStore } from './refresh-token-store.mongo.ts';
import { mongoRevocationStore } from './revocation-store.mongo.ts';
import type { Stores } from './stores.ts';
import { mongoUserStore } from './user-store.mongo.ts';

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
    credentials: mongoCredentialStore(db, run),
    refreshTokens: mongoRefreshTokenStore(db, run),
    revocations: mongoRevocationStore(db, options.revocationSyncMs, run),
    users: mongoUserStore(mongo),
    activity: mongoActivityStore(db, run),
    employees: mongoEmployeeStore(db, run),
    throttle: mongoLoginThrottleStore(db, run),
    keys: mongoKeyStore(db, options.revocationSyncMs, run),
    codes: mongoAuthorizationCodeStore(db, run),
    async prepare(load) {
      // One bounded operation per collection: a large collection may take a while to check.
      for (const [name, indexes] of Object.entries(INDEXES))
        await mongo.runPreparing(() => db.collection(name).createIndexes([...indexes]));
      await load(mongoCredentialStore(db, mongo.runPreparing));
      mongo.opened();
    },
    ping: mongo.ping,
    close: mongo.close,
  };
}
