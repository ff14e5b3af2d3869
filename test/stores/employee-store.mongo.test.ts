/**
 * The EmployeeStore contract against MongoDB: a server at MONGODB_URI, or a mongod on PATH started
 * for the run; otherwise a visible skip. The unreachable-server behaviour is checked on every run.
 */
import { MongoClient } from 'mongodb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId } from '../../src/ids.ts';
import { mongoEmployeeStore } from '../../src/stores/employee-store.mongo.ts';
import { openMongo } from '../../src/stores/mongo.ts';
import { openMongoStores } from '../../src/stores/stores.mongo.ts';
import { StoreUnavailableError } from '../../src/stores/store-unavailable.ts';
import { employeeStoreContract } from './employee-store.contract.ts';
import { MONGO_SKIP_REASON, mongoUri, skipWithReason, stopMongo } from '../helpers/mongo.ts';
import { closedPort } from '../helpers/ports.ts';

if (MONGO_SKIP_REASON) {
  skipWithReason('EmployeeStore contract (MongoDB)');
} else {
  const run = `troupe_contract_${process.pid}_${Date.now().toString(36)}`;
  const state = { dbs: [] as string[] } as { client?: MongoClient; dbs: string[] };
  employeeStoreContract('MongoDB', {
    async setup() {
      state.client = await new MongoClient(await mongoUri(), { serverSelectionTimeoutMS: 3000 }).connect();
    },
    async open() {
      const client = state.client;
      if (!client) throw new Error('MongoDB did not start');
      const name = `${run}_${state.dbs.length}`;
      state.dbs.push(name);
      return {
        store: mongoEmployeeStore(client.db(name)),
        dispose: async () => {
          await client.db(name).dropDatabase();
        },
      };
    },
    async teardown() {
      for (const name of state.dbs)
        await state.client
          ?.db(name)
          .dropDatabase()
          .catch(() => undefined);
      await state.client?.close();
      await stopMongo();
    },
  });
}

const down = suite('EmployeeStore (MongoDB unreachable)');

down('every operation rejects with StoreUnavailableError within the server-selection timeout', async () => {
  // As openMongoStores builds it, once prepared: then the server went away.
  const mongo = openMongo(`mongodb://127.0.0.1:${await closedPort()}/troupe?serverSelectionTimeoutMS=200`);
  mongo.opened();
  const store = mongoEmployeeStore(mongo.db, mongo.run);
  try {
    const calls = [
      store.insert({ name: 'Jane Roe', dateOfBirth: '1990-04-12' }, new Date().toISOString()),
      store.findById(newId()),
      store.search({ limit: 10 }),
      store.update(newId(), { name: 'X' }, undefined, new Date().toISOString()),
      store.delete(newId()),
    ];
    for (const outcome of await Promise.allSettled(calls)) {
      assert.is(outcome.status, 'rejected');
      if (outcome.status === 'rejected') assert.instance(outcome.reason, StoreUnavailableError);
    }
  } finally {
    await mongo.close();
  }
});

down('a URI that is not a MongoDB connection string is a configuration error naming the key, not the value', () => {
  assert.throws(
    () => openMongoStores('postgres://user:secret@host/db', { revocationSyncMs: 1000 }),
    (e: Error) => e.name === 'ConfigError' && /mongodb\.uri/.test(e.message) && !e.message.includes('secret'),
  );
});

down.run();
