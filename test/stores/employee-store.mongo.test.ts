/**
 * The EmployeeStore contract against MongoDB: a server at MONGODB_URI, or a mongod on PATH started
 * for the run; otherwise a visible skip. The unreachable-server behaviour is checked on every run.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import type { MongoMemoryServer } from 'mongodb-memory-server-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newId } from '../../src/ids.ts';
import { mongoEmployeeStore, openMongoEmployeeStore } from '../../src/stores/employee-store.mongo.ts';
import { StoreUnavailableError } from '../../src/stores/employee-store.ts';
import { employeeStoreContract } from './employee-store.contract.ts';
import { closedPort } from '../helpers/ports.ts';

function onPath(binary: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(':').filter(Boolean)) {
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return join(dir, binary);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const envUri = process.env['MONGODB_URI'];
const mongod = envUri ? undefined : onPath('mongod');

if (!envUri && !mongod) {
  const skipped = suite('EmployeeStore contract (MongoDB)');
  skipped.skip('needs MONGODB_URI or mongod on PATH', () => {});
  skipped.run();
} else {
  const run = `troupe_contract_${process.pid}_${Date.now().toString(36)}`;
  const state = {} as { server?: MongoMemoryServer; client?: MongoClient; dbs: string[] };
  state.dbs = [];
  employeeStoreContract('MongoDB', {
    async setup() {
      let uri = envUri;
      if (!uri) {
        const { MongoMemoryServer } = await import('mongodb-memory-server-core');
        state.server = await MongoMemoryServer.create({ binary: { systemBinary: mongod } });
        uri = state.server.getUri();
      }
      state.client = await new MongoClient(uri, { serverSelectionTimeoutMS: 3000 }).connect();
    },
    async open() {
      const client = state.client;
      if (!client) throw new Error('MongoDB did not start');
      const name = `${run}_${state.dbs.length}`;
      state.dbs.push(name);
      return { store: mongoEmployeeStore(client.db(name)), dispose: async () => { await client.db(name).dropDatabase(); } };
    },
    async teardown() {
      for (const name of state.dbs) await state.client?.db(name).dropDatabase().catch(() => undefined);
      await state.client?.close();
      await state.server?.stop();
    },
  });
}


const down = suite('EmployeeStore (MongoDB unreachable)');

down('every operation rejects with StoreUnavailableError within the server-selection timeout', async () => {
  const store = openMongoEmployeeStore(`mongodb://127.0.0.1:${await closedPort()}/troupe?serverSelectionTimeoutMS=200`);
  try {
    const calls = [
      store.insert({ name: 'Jane Roe', dateOfBirth: '1990-04-12' }, new Date().toISOString()), store.findById(newId()),
      store.search({ limit: 10 }), store.update(newId(), { name: 'X' }, undefined, new Date().toISOString()), store.delete(newId()), store.ping(),
    ];
    for (const outcome of await Promise.allSettled(calls)) {
      assert.is(outcome.status, 'rejected');
      if (outcome.status === 'rejected') assert.instance(outcome.reason, StoreUnavailableError);
    }
  } finally {
    await store.close();
  }
});

down('a URI that is not a MongoDB connection string is a configuration error naming the key, not the value', () => {
  assert.throws(() => openMongoEmployeeStore('postgres://user:secret@host/db'), (e: Error) => e.name === 'ConfigError' && /mongodb\.uri/.test(e.message) && !e.message.includes('secret'));
});

down.run();
