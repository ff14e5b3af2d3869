import { rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer, startNpmStart, type ChildServer } from './helpers/child.ts';
import { closedPort } from './helpers/ports.ts';
import { tempDir } from './helpers/server.ts';
import { postToken } from './helpers/tokens.ts';
import { waitFor } from './helpers/wait.ts';

const t = suite('graceful shutdown (SIGTERM, SIGINT)');

/** One GET /health on a new connection (no keep-alive: an open connection outlives the listener). */
function probe(url: string): Promise<string> {
  return new Promise((resolve) => {
    get(`${url}/health`, { agent: false }, (res) => {
      res.resume();
      resolve('answered');
    }).on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

/**
 * Probes /health until a connection is refused (the listener closed) or `timeoutMs` passes. A
 * probe that reached the listen queue just as the listener closed is reset rather than refused
 * (the kernel drops what was queued): it was not served either, and the next probe tells.
 */
async function refusedWithin(url: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await probe(url);
    if ((outcome !== 'answered' && outcome !== 'ECONNRESET') || Date.now() > deadline) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Whether the server at `url` is ready: its store prepared, the initial data loaded. */
const ready = (url: string) => async (): Promise<boolean> =>
  (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200;

t(
  'an in-flight request completes, new connections are refused, the process exits 0, the database is intact',
  async () => {
    const dataDir = tempDir();
    const server = await startChildServer(dataDir, {
      APP_INITIAL_DATA: 'test/fixtures/initial-data-slow.json',
      DATA_SQLITE_SYNCHRONOUS: 'FULL',
    });
    const { child, url } = server;
    try {
      // Listening comes before the initial data is loaded (hashed at cost 13 here): a request sent
      // then may still wait in the listener's queue when SIGTERM closes it, and is never in flight.
      await waitFor(ready(url), '/ready answering 200', 30_000, 50);
      // The user's BCrypt cost is 13 (≈0.7 s), so this login is still running when SIGTERM arrives.
      // Settled either way, so that a login cut off fails this test rather than ending the run.
      const inFlight = postToken(url, { grant_type: 'password', username: 'slow', password: 'slow-password' }).then(
        (res) => res,
        (error: unknown) => new Error(`the in-flight login got no answer: ${String(error)}`),
      );
      await new Promise((resolve) => setTimeout(resolve, 150));
      child.kill('SIGTERM');
      assert.is(await refusedWithin(url, 3000), 'ECONNREFUSED');
      const res = await inFlight;
      if (res instanceof Error) throw res;
      assert.is(res.status, 200);
      assert.type(((await res.json()) as { access_token: string }).access_token, 'string');
      const [code, signal] = await server.exited;
      assert.is(signal, null);
      assert.is(code, 0);
      const db = new Database(join(dataDir, 'troupe.db'), { readonly: true });
      assert.is(db.pragma('integrity_check', { simple: true }), 'ok');
      assert.is(
        db.prepare('select count(*) from refresh_tokens').pluck().get(),
        1,
        'the login that completed was kept',
      );
      db.close();
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

t('SIGINT (Ctrl-C) shuts down the same way: exit 0, the database intact', async () => {
  const dataDir = tempDir();
  const server = await startChildServer(dataDir, { DATA_SQLITE_SYNCHRONOUS: 'FULL' });
  try {
    assert.is(
      (await postToken(server.url, { grant_type: 'password', username: 'john.doe', password: 'john-password' })).status,
      200,
    );
    server.child.kill('SIGINT');
    const [code, signal] = await server.exited;
    assert.equal([code, signal], [0, null]);
    const db = new Database(join(dataDir, 'troupe.db'), { readonly: true });
    assert.is(db.pragma('integrity_check', { simple: true }), 'ok');
    assert.is(db.prepare('select count(*) from refresh_tokens').pluck().get(), 1);
    db.close();
  } finally {
    server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t('a second SIGINT while shutting down (Ctrl-C under npm comes twice) does not cut it short: exit 0', async () => {
  const dataDir = tempDir();
  const server = await startChildServer(dataDir);
  try {
    server.child.kill('SIGINT');
    await waitFor(() => server.output().includes('"msg":"shutting down"'), 'the server shutting down', 10_000);
    server.child.kill('SIGINT');
    assert.equal(await server.exited, [0, null]);
  } finally {
    await server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Whether a new listener can bind `port` on loopback (nothing holds it any more). */
function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `npm start` on a free port with an empty configuration file, once /ready answers 200. */
async function npmStart(dataDir: string): Promise<{ server: ChildServer; port: number }> {
  const port = await closedPort();
  const server = await startNpmStart(dataDir, { PORT: String(port) });
  await waitFor(ready(server.url), '/ready answering 200', 30_000, 50);
  return { server, port };
}

// Process managers and containers signal the process they started: npm. The server must get it.
t("npm start › SIGTERM to npm's pid stops the server: npm exits 0 and the port is free", async () => {
  const dataDir = tempDir();
  const { server, port } = await npmStart(dataDir);
  try {
    process.kill(server.pid, 'SIGTERM');
    assert.equal(await server.exited, [0, null], 'npm passes on the exit code of a graceful shutdown');
    await waitFor(() => canListen(port), `port ${port} free after npm exited`, 10_000, 50);
  } finally {
    await server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t("npm start › Ctrl-C in a terminal (SIGINT to npm's process group): exit 0, the port is free", async () => {
  const dataDir = tempDir();
  const { server, port } = await npmStart(dataDir);
  try {
    process.kill(-server.pid, 'SIGINT');
    assert.equal(await server.exited, [0, null]);
    await waitFor(() => canListen(port), `port ${port} free after npm exited`, 10_000, 50);
  } finally {
    await server.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

t.run();
