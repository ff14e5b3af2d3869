/**
 * A server started before MongoDB (a `docker compose up` where the app wins the race, a replica
 * set still electing): it answers 503 meanwhile, and serves as soon as MongoDB answers, without a
 * restart. MongoDB "appears" as a TCP proxy opened later on the configured port, in front of the
 * test server (test/helpers/mongo.ts); skipped where there is none.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { MongoClient } from 'mongodb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MONGO_SKIP_REASON, mongoUri, skipWithReason, stopMongo, withDatabase } from '../helpers/mongo.ts';
import { closedPort } from '../helpers/ports.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { postToken, USERS } from '../helpers/tokens.ts';

const KEY = 'a-signing-key-shared-by-every-instance-0123456789';

/** Forwards every connection on `port` to `target` (host:port). */
async function proxy(port: number, target: { host: string; port: number }): Promise<() => Promise<void>> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection(target);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => client.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
}

if (MONGO_SKIP_REASON) {
  skipWithReason('MongoDB answering after the server started');
} else {
  const t = suite('MongoDB answering after the server started', {} as { server?: TestServer; uri: string });
  t.after(async (c) => {
    await c.server?.close();
    if (c.uri) {
      const client = await new MongoClient(c.uri, { serverSelectionTimeoutMS: 3000, directConnection: true }).connect();
      await client.db().dropDatabase();
      await client.close();
    }
    await stopMongo();
  });

  t('503 while MongoDB is away; /ready turns 200 and logins work once it answers, without a restart', async (c) => {
    const real = new URL((await mongoUri()).replace(/^mongodb:/, 'http:'));
    const port = await closedPort();
    const name = `troupe_late_${process.pid}`;
    c.uri = withDatabase(`mongodb://127.0.0.1:${port}/?directConnection=true`, name);
    c.server = await startTestServer({ 'mongodb.uri': c.uri, 'security.signing-key': KEY });
    assert.is((await fetch(`${c.server.url}/ready`)).status, 503);
    assert.is((await postToken(c.server.url, { grant_type: 'password', ...USERS.john })).status, 503);
    const close = await proxy(port, { host: real.hostname, port: Number(real.port) });
    try {
      const deadline = Date.now() + 30_000;
      while ((await fetch(`${c.server.url}/ready`)).status !== 200) {
        assert.ok(Date.now() < deadline, '/ready did not turn 200 within 30 s of MongoDB answering');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      assert.is((await postToken(c.server.url, { grant_type: 'password', ...USERS.john })).status, 200);
    } finally {
      await c.server.close();
      c.server = undefined;
      await close();
      c.uri = withDatabase(`mongodb://${real.host}/?directConnection=true`, name);
    }
  });

  t.run();
}
