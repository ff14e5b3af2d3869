/**
 * The MongoDB connection as a deployment meets it, checked where no MongoDB server runs: a closed
 * port, a TCP listener opened later or one that never answers, an unresolvable SRV host, and
 * server errors of a failover injected at the adapter boundary.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { MongoServerError, MongoWriteConcernError, type Db as MongoDb } from 'mongodb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLoginThrottle } from '../../src/security/login-throttle.ts';
import { mongoLoginThrottleStore } from '../../src/stores/login-throttle-store.mongo.ts';
import { guarded, openMongo } from '../../src/stores/mongo.ts';
import { openMongoStores } from '../../src/stores/stores.mongo.ts';
import type { Stores } from '../../src/stores/stores.ts';
import { causeOf, StoreUnavailableError } from '../../src/stores/store-unavailable.ts';
import { closedPort } from '../helpers/ports.ts';

/** A plain TCP listener on `port` that counts connections and never answers (a black hole). */
async function listener(port: number): Promise<{ server: Server; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    server,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The rejection of `p`, or a failed assertion when it resolves. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  return assert.unreachable('expected a rejection');
}

const t = suite('MongoDB connection (no server needed)');
const opened: Stores[] = [];
t.after.each(async () => {
  for (const s of opened.splice(0)) await s.close();
});
const open = (uri: string, operationTimeoutMs?: number): Stores => {
  const stores = openMongoStores(uri, {
    revocationSyncMs: 100,
    ...(operationTimeoutMs === undefined ? {} : { operationTimeoutMs }),
  });
  opened.push(stores);
  return stores;
};
const prepareNothing = async (): Promise<void> => {};

t('a failed first connection is tried again: a server opened later on the port sees the next attempts', async () => {
  const port = await closedPort();
  const stores = open(`mongodb://127.0.0.1:${port}/troupe?serverSelectionTimeoutMS=200`);
  const first = await rejection(stores.prepare(prepareNothing));
  assert.instance(first, StoreUnavailableError);
  assert.match(causeOf(first), /ECONNREFUSED/);
  const late = await listener(port);
  try {
    assert.instance(await rejection(stores.prepare(prepareNothing)), StoreUnavailableError);
    assert.ok(late.connections() > 0, 'no connection was attempted after the failed start');
  } finally {
    await late.close();
  }
});

t('an unresolvable mongodb+srv:// host is unavailable (503 and retry), named in the cause, not a crash', async () => {
  const stores = open('mongodb+srv://cluster0.troupe.invalid/troupe?serverSelectionTimeoutMS=500');
  const error = await rejection(stores.prepare(prepareNothing));
  assert.instance(error, StoreUnavailableError);
  assert.match(causeOf(error), /querySrv/);
  assert.instance(await rejection(stores.ping()), StoreUnavailableError, 'tried again, not closed for good');
});

t(
  'no store operation runs before the preparation succeeded: refused at once, without touching the server',
  async () => {
    const port = await closedPort();
    const watcher = await listener(port);
    try {
      const stores = open(`mongodb://127.0.0.1:${port}/troupe?serverSelectionTimeoutMS=200`);
      const calls = [
        stores.accounts.findByUsername('admin'),
        stores.refreshTokens.find('x'),
        stores.revocations.since(0, 0),
        stores.users.insert({
          id: '0123456789abcdef01234567' as never,
          name: 'A',
          email: 'a@b.c',
          createdAt: '',
          updatedAt: '',
        }),
        stores.employees.search({ limit: 1 }),
        stores.throttle.counter({ keyPrefix: 'k', points: 1, duration: 60 }).consume('x'),
      ];
      for (const outcome of await Promise.allSettled(calls)) {
        assert.is(outcome.status, 'rejected');
        if (outcome.status === 'rejected') assert.instance(outcome.reason, StoreUnavailableError);
      }
      assert.is(watcher.connections(), 0, 'an operation reached the server before the indexes were made');
    } finally {
      await watcher.close();
    }
  },
);

t('a server that never answers: an operation ends as unavailable within mongodb.operation-timeout-ms', async () => {
  const port = await closedPort();
  const hole = await listener(port);
  try {
    const stores = open(`mongodb://127.0.0.1:${port}/troupe`, 400);
    const started = Date.now();
    assert.instance(await rejection(stores.prepare(prepareNothing)), StoreUnavailableError);
    const took = Date.now() - started;
    assert.ok(took < 2000, `took ${took} ms`);
    assert.ok(hole.connections() > 0);
  } finally {
    await hole.close();
  }
});

t('/ready’s ping has its own short deadline, whatever the operations may take', async () => {
  const port = await closedPort();
  const hole = await listener(port);
  try {
    const stores = open(`mongodb://127.0.0.1:${port}/troupe?serverSelectionTimeoutMS=8000`, 10_000);
    const started = Date.now();
    assert.instance(await rejection(stores.ping()), StoreUnavailableError);
    const took = Date.now() - started;
    assert.ok(took < 4000, `took ${took} ms`);
  } finally {
    await hole.close();
  }
});

t('every read goes to the primary, whatever read preference the URI names', async () => {
  const mongo = openMongo('mongodb://127.0.0.1:1/troupe?readPreference=secondaryPreferred');
  try {
    assert.is(mongo.db.readPreference.mode, 'primary');
    assert.is(mongo.db.collection('refresh_tokens').readPreference?.mode, 'primary');
  } finally {
    await mongo.close();
  }
});

/** A server error as a replica set answers it during a failover. */
const serverError = (code: number, codeName: string, labels: string[] = []): MongoServerError => {
  const error = new MongoServerError({ ok: 0, code, codeName, errmsg: codeName });
  for (const label of labels) error.addErrorLabel(label);
  return error;
};

t(
  'failover errors are unavailable (503), by the driver’s labels first, then by code; other errors stay faults',
  async () => {
    const transient = [
      serverError(10107, 'NotWritablePrimary'),
      serverError(11602, 'InterruptedDueToReplStateChange'),
      serverError(189, 'PrimarySteppedDown'),
      serverError(91, 'ShutdownInProgress'),
      serverError(11600, 'InterruptedAtShutdown'),
      serverError(9999, 'SomethingNew', ['RetryableWriteError']),
      serverError(9998, 'SomethingElse', ['ResetPool']),
      new MongoWriteConcernError({
        ok: 1,
        writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
      }),
    ];
    for (const error of transient) {
      const mapped = await rejection(guarded(() => Promise.reject(error)));
      assert.instance(mapped, StoreUnavailableError, error.message);
      assert.is((mapped as Error).cause, error);
    }
    for (const error of [serverError(2, 'BadValue'), serverError(11000, 'DuplicateKey'), new TypeError('bug')])
      assert.is(await rejection(guarded(() => Promise.reject(error))), error);
  },
);

t('the login throttle’s clean-up writes (give back, delete) map a failover the same way', async () => {
  const failover = (): Promise<never> => Promise.reject(serverError(10107, 'NotWritablePrimary'));
  const collection = {
    findOneAndUpdate: failover,
    updateOne: failover,
    deleteOne: failover,
    findOne: failover,
    countDocuments: failover,
  };
  // The driver's collections, at the adapter boundary, as a primary stepping down answers.
  const db = { collection: () => collection } as unknown as MongoDb;
  const store = mongoLoginThrottleStore(db);
  const counter = store.counter({ keyPrefix: 'addr', points: 5, duration: 60 });
  assert.instance(await rejection(store.giveBack(counter, '10.0.0.1', Date.now() + 60_000)), StoreUnavailableError);
  assert.instance(await rejection(counter.delete('10.0.0.1')), StoreUnavailableError);
  assert.instance(await rejection(counter.consume('10.0.0.1')), StoreUnavailableError);
  const throttle = createLoginThrottle({ maxFailuresPerUser: 5, maxFailuresPerAddress: 5, windowSeconds: 60 }, store);
  assert.instance(await rejection(throttle.beginClient('svc', '10.0.0.1')), StoreUnavailableError);
  assert.instance(
    await rejection(throttle.readClient('svc', '10.0.0.1')),
    StoreUnavailableError,
    'a read fails closed',
  );
});

t.run();
