/** Every store contract against MongoDB, when a server is at hand (test/helpers/mongo.ts): a fresh database per test. */
import { MongoClient } from 'mongodb';
import type { Stores } from '../../src/stores/stores.ts';
import { openMongoStores } from '../../src/stores/stores.mongo.ts';
import { MONGO_SKIP_REASON, mongoUri, skipWithReason, stopMongo, withDatabase } from '../helpers/mongo.ts';
import { storeContracts } from './contracts.ts';

if (MONGO_SKIP_REASON) {
  skipWithReason('store contracts (MongoDB)');
} else {
  const run = `troupe_contract_${process.pid}_${Date.now().toString(36)}`;
  let databases = 0;
  storeContracts('MongoDB', {
    async open() {
      const uri = withDatabase(await mongoUri(), `${run}_${databases++}`);
      const open = async (): Promise<Stores> => {
        const stores = openMongoStores(uri, { revocationSyncMs: 50 });
        await stores.prepare(async () => {});
        return stores;
      };
      const all = [await open()];
      return {
        stores: all[0] as Stores,
        async another() {
          const more = await open();
          all.push(more);
          return more;
        },
        async dispose() {
          const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 3000 }).connect();
          await client.db().dropDatabase();
          await client.close();
          for (const s of all) await s.close();
        },
      };
    },
    teardown: stopMongo,
  });
}
