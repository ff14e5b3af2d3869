/**
 * SIGTERM under load, as in a rolling deploy: 30 clients on kept-alive connections send password
 * logins and employee reads through the signal to the server as `npm start` runs it, alone and
 * with `server.workers=2`. Each round must end with no connection reset: every request answered
 * (before the signal with its own answer, after it with the drain's 503), the clients then refused
 * once the listener is closed. The window is short so that logins begun before the signal are still
 * being answered as it ends: the moment an order that drops connections gives itself away.
 */
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startChildServer } from './helpers/child.ts';
import { loadThrough, type Tally } from './helpers/drain-load.ts';
import { tempDir } from './helpers/server.ts';
import { bearer, login } from './helpers/tokens.ts';
import { waitFor } from './helpers/wait.ts';

const CLIENTS = 30;
const ROUNDS = 5;

const t = suite('shutdown under load: no connection reset');

/** The token of a login and an employee to read; each worker loads the initial data before it can log in. */
async function prepare(url: string): Promise<{ token: string; employeeId: string }> {
  let token = '';
  await waitFor(
    async () => {
      token = (await login(url).catch(() => undefined))?.access_token ?? '';
      return token !== '';
    },
    'a login answered 200',
    30_000,
    50,
  );
  const created = await fetch(`${url}/api/employee/create`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Jane Roe', dateOfBirth: '1990-04-12' }),
  });
  assert.is(created.status, 201);
  return { token, employeeId: ((await created.json()) as { id: string }).id };
}

/** One server started, loaded, signalled; its clients' outcomes. */
async function round(dataDir: string, workers: number): Promise<Tally> {
  const server = await startChildServer(dataDir, { SERVER_WORKERS: String(workers), SERVER_DRAIN_WINDOW_MS: '250' });
  try {
    const load = loadThrough(server.url, { clients: CLIENTS, ...(await prepare(server.url)), gone: server.exited });
    // Every client has been answered twice (a login and a read): each is on its kept-alive connection.
    await load.warmedUp(2);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, [0, null], 'exit 0 on SIGTERM');
    const tally = await load.done;
    assert.match(server.output().trim().split('\n').at(-1) ?? '', /"msg":"troupe stopped"/);
    return tally;
  } finally {
    await server.kill();
  }
}

for (const workers of [1, 2]) {
  t(`${ROUNDS} rounds, server.workers=${workers}: every request answered, no reset, exit 0`, async () => {
    const dataDir = tempDir();
    try {
      for (let i = 1; i <= ROUNDS; i++) {
        const tally = await round(dataDir, workers);
        const what = `round ${i}: ${JSON.stringify(tally)}`;
        assert.is(tally.reset, 0, what);
        assert.is(tally.wrong, 0, what);
        assert.ok(tally.answered >= 2 * CLIENTS, what);
        // Each client is told on its connection, then refused once the listener is closed.
        assert.ok(tally.unavailable >= CLIENTS, what);
        assert.is(tally.refused, CLIENTS, what);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

t.run();
