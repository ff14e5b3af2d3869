import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer, startNpmStart, type ChildServer } from './helpers/child.ts';
import { answerTo, holdLogin } from './helpers/held-request.ts';
import { closedPort } from './helpers/ports.ts';
import { tempDir } from './helpers/server.ts';
import { postToken } from './helpers/tokens.ts';
import { waitFor } from './helpers/wait.ts';

const t = suite('graceful shutdown (SIGTERM, SIGINT)');

/** Whether the server at `url` is ready: its store prepared, the initial data loaded. */
const ready = (url: string) => async (): Promise<boolean> =>
  (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200;

t(
  'SIGTERM drains: a new request is 503 with Retry-After and Connection: close, the one in flight completes 200, then the port refuses; exit 0, the database intact',
  async () => {
    const dataDir = tempDir();
    const server = await startChildServer(dataDir, { DATA_SQLITE_SYNCHRONOUS: 'FULL' });
    const { child, url } = server;
    try {
      // Listening comes before the initial data is loaded: a login sent then could fail for that.
      await waitFor(ready(url), '/ready answering 200', 30_000, 50);
      // Begun by the server, held until its body's second half is sent: it keeps the drain going.
      const held = await holdLogin(url);
      child.kill('SIGTERM');
      await waitFor(() => server.output().includes('"msg":"shutting down"'), 'the server shutting down', 10_000);
      const during = await answerTo(`${url}/health`);
      if (typeof during === 'string') throw new Error(`a request during the drain failed: ${during}`);
      assert.is(during.status, 503);
      assert.is(during.headers['retry-after'], '1');
      assert.is(during.headers.connection, 'close');
      const answer = await held.finish();
      assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.match(answer, /"access_token":"/);
      const [code, signal] = await server.exited;
      assert.is(signal, null);
      assert.is(code, 0);
      assert.is(await answerTo(`${url}/health`), 'ECONNREFUSED');
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

for (const workers of [1, 2]) {
  t(
    `server.workers=${workers} › an idle SIGTERM stops well within the drain window, its last line "troupe stopped"; exit 0`,
    async () => {
      const dataDir = tempDir();
      // A window no idle stop may wait for: with nothing open, the listener closes at once.
      const server = await startChildServer(dataDir, {
        SERVER_WORKERS: String(workers),
        SERVER_DRAIN_WINDOW_MS: '20000',
      });
      try {
        // Without keeping a connection: at the signal none is open.
        await waitFor(
          async () => {
            const answer = await answerTo(`${server.url}/ready`);
            return typeof answer !== 'string' && answer.status === 200;
          },
          '/ready answering 200',
          30_000,
          50,
        );
        const signalled = Date.now();
        server.child.kill('SIGTERM');
        assert.equal(await server.exited, [0, null]);
        const took = Date.now() - signalled;
        assert.ok(took < 5000, `the stop took ${took} ms of a 20000 ms window`);
        const last = JSON.parse(server.output().trim().split('\n').at(-1) ?? '{}') as { msg?: string; level?: number };
        assert.is(last.msg, 'troupe stopped');
        assert.is(last.level, 30);
        if (workers > 1) assert.is(server.output().split('"msg":"worker stopped"').length - 1, workers);
      } finally {
        await server.kill();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
}

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
