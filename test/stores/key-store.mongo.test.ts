/** The KeyStore contract against MongoDB, when a server is at hand (test/helpers/mongo.ts): a fresh database per test. */
import { MongoClient } from 'mongodb';
import type { KeyUse } from '../../src/stores/key-store.ts';
import { mongoKeyStore } from '../../src/stores/key-store.mongo.ts';
import { MONGO_SKIP_REASON, mongoUri, skipWithReason, stopMongo, withDatabase } from '../helpers/mongo.ts';
import { keyStoreContract } from './key-store.contract.ts';

const SYNC_MS = 50;

if (MONGO_SKIP_REASON) {
  skipWithReason('KeyStore contract (MongoDB)');
} else {
  const run = `troupe_keys_${process.pid}_${Date.now().toString(36)}`;
  let databases = 0;
  keyStoreContract('MongoDB', {
    changeBoundMs: SYNC_MS + 10,
    async open() {
      const uri = withDatabase(await mongoUri(), `${run}_${databases++}`);
      const clients: MongoClient[] = [];
      const open = async (use: KeyUse = 'access') => {
        const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 3000 }).connect();
        clients.push(client);
        return mongoKeyStore(client.db(), SYNC_MS, use);
      };
      const store = await open();
      return {
        store,
        lineage: (use) => mongoKeyStore((clients[0] as MongoClient).db(), SYNC_MS, use),
        another: open,
        async dispose() {
          await clients[0]?.db().dropDatabase();
          for (const c of clients) await c.close();
        },
      };
    },
    teardown: stopMongo,
  });
}
