import { mongoActivityStore } from './activity-store.mongo.ts';
import { mongoCredentialStore } from './credential-store.mongo.ts';
import { mongoEmployeeStore } from './employee-store.mongo.ts';
import { mongoKeyStore } from './key-store.mongo.ts';
import { mongoLoginThrottleStore } from './login-throttle-store.mongo.ts';
import { guarded, openMongo } from './mongo.ts';
import { INDEXES } from './mongo-queries.ts';
import { mongoRefreshTokenStore } from './refresh-token-store.mongo.ts';
import { mongoRevocationStore } from './revocation-store.mongo.ts';
import type { Stores } from './stores.ts';
import { mongoUserStore } from './user-store.mongo.ts';

export interface MongoStoreOptions {
  /** How often an instance reads the revocations others added (`security.revocation-sync-ms`). */
  readonly revocationSyncMs: number;
}

/**
 * Every store in the MongoDB database named by `uri`: one client for the process. No I/O until
 * `prepare` (the indexes) or the first operation.
 */
export function openMongoStores(uri: string, options: MongoStoreOptions): Stores {
  const mongo = openMongo(uri);
  const { db } = mongo;
  return {
    kind: 'MongoDB',
    credentials: mongoCredentialStore(db),
    refreshTokens: mongoRefreshTokenStore(db),
    revocations: mongoRevocationStore(db, options.revocationSyncMs),
    users: mongoUserStore(mongo),
    activity: mongoActivityStore(db),
    employees: mongoEmployeeStore(db),
    throttle: mongoLoginThrottleStore(db),
    keys: mongoKeyStore(db, options.revocationSyncMs),
    prepare: () =>
      guarded(async () => {
        for (const [name, indexes] of Object.entries(INDEXES)) await db.collection(name).createIndexes([...indexes]);
      }),
    ping: mongo.ping,
    close: mongo.close,
  };
}
