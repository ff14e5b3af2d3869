/** The stores as the configuration names them, opened the same way by the server and `npm run keys`. */
import type { Config } from '../config.ts';
import { openMongoStores } from '../stores/stores.mongo.ts';
import { openSqliteStores } from '../stores/stores.sqlite.ts';
import type { Stores } from '../stores/stores.ts';

/** Every store: in MongoDB when `mongodb.uri` is set (nothing in SQLite then), else in the SQLite file. */
export function openConfiguredStores(config: Config): Stores {
  return config.mongodb.uri
    ? openMongoStores(config.mongodb.uri, {
        revocationSyncMs: config.security.revocationSyncMs,
        operationTimeoutMs: config.mongodb.operationTimeoutMs,
      })
    : openSqliteStores(config.data.dir, {
        synchronous: config.data.sqlite.synchronous,
        openTimeoutMs: config.data.sqlite.openTimeoutMs,
      });
}
