/**
 * Overload: an actor's mailbox is bounded (`actors.mailbox-limit`). Past the bound a request is
 * refused at once with 503 + Retry-After instead of queueing without limit; what was admitted is
 * served, nothing refused is half-done, and the process is fine afterwards.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnUserActor } from '../../actors/user/actor.ts';
import type * as Activity from '../../actors/activity/protocol.ts';
import * as User from '../../actors/user/protocol.ts';
import { newId } from '../../src/ids.ts';
import { ask, MailboxFullError } from '../../src/messaging/ask.ts';
import { startSystem, stopSystem } from '../../src/messaging/nact.ts';
import { limitMailbox } from '../../src/messaging/reply-slots.ts';
import { mailboxSize } from '../../src/messaging/introspection.ts';
import { replyThenResume } from '../../src/messaging/supervision.ts';
import { openDatabase } from '../../src/stores/sqlite.ts';
import { sqliteUserStore } from '../../src/stores/user-store.sqlite.ts';
import { openReader } from '../helpers/faults.ts';
import { createProbe } from '../helpers/probe.ts';
import { startTestServer } from '../helpers/server.ts';
import { login } from '../helpers/tokens.ts';
import { send } from '../helpers/user-data.ts';

const t = suite('reliability: overload');

interface Answer {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: unknown;
}

/** Reads one `Connection: close` answer off the socket: status line, headers, JSON body. */
function answerOf(socket: Socket): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers = new Map(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const body = text.slice(split + 4);
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? undefined : JSON.parse(body) });
    });
  });
}

/**
 * Sends every request on a connection of its own, all written in one synchronous run after the
 * server has taken the connections: the requests are all in the kernel before the server's next
 * poll, which reads them together, as a real burst arrives. (Requests sent one by one from this
 * process's own event loop would reach the server spread over many turns, each drained at once.)
 */
async function burst(url: string, requests: readonly string[]): Promise<Answer[]> {
  const { hostname, port } = new URL(url);
  const sockets = await Promise.all(
    requests.map(
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(Number(port), hostname, () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  await sleep(100); // the server accepts them
  const answers = sockets.map(answerOf);
  sockets.forEach((socket, i) => socket.write(requests[i] ?? ''));
  return Promise.all(answers);
}

const post = (path: string, token: string, json: unknown): string => {
  const body = JSON.stringify(json);
  return [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${token}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
};

t('ask › past the mailbox bound the request is refused without being sent; the admitted ones are served', async () => {
  const db = openDatabase(':memory:', { synchronous: 'NORMAL' });
  const system = startSystem(`overload-${Math.random().toString(36).slice(2)}`);
  try {
    const activity = createProbe<Activity.RouterCommand>(system).ref;
    const users = spawnUserActor(system, {
      store: sqliteUserStore(db),
      activity,
      askTimeoutMs: 2000,
      onCrash: replyThenResume(() => {}),
    });
    limitMailbox(users, 5);
    // All in one tick: the first is taken at once, five wait in the mailbox, the rest are refused.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, () => ask(users, User.get({ id: newId() }), 2000)),
    );
    const refused = outcomes.filter((o) => o.status === 'rejected');
    assert.is(outcomes.length - refused.length, 6);
    assert.ok(refused.every((o) => o.reason instanceof MailboxFullError));
    assert.is(mailboxSize(users), 0);
    const again = await ask(users, User.get({ id: newId() }), 2000);
    assert.is(again.ok ? 'ok' : again.code, 'user.not_found');
  } finally {
    stopSystem(system);
    db.close();
  }
});

t(
  'HTTP › a burst of 200 creates at a bound of 5: 201 or 503 + Retry-After, never another 5xx; every 201 is stored, no 503 is',
  async () => {
    const server = await startTestServer({ 'actors.mailbox-limit': '5' });
    try {
      const { access_token: token } = await login(server.url);
      const answers = await burst(
        server.url,
        Array.from({ length: 200 }, (_, i) =>
          post('/api/user', token, { name: `Burst ${i}`, email: `burst${i}@example.com` }),
        ),
      );
      const statuses = answers.map((r) => r.status);
      assert.ok(
        statuses.every((s) => s === 201 || s === 503),
        `unexpected statuses ${[...new Set(statuses)].join(', ')}`,
      );
      const refused = answers.filter((r) => r.status === 503);
      assert.ok(refused.length > 0, 'the burst never reached the bound');
      assert.ok(
        refused.every((r) => r.headers.get('retry-after') === '1' && (r.body as { status: number }).status === 503),
      );
      const created = answers
        .filter((r) => r.status === 201)
        .map((r) => (r.body as { email: string }).email)
        .sort();
      assert.ok(created.length > 0);
      const reader = openReader(server.dataDir);
      const stored = reader
        .prepare("select email from user_data where email like 'burst%' order by email")
        .pluck()
        .all() as string[];
      reader.close();
      assert.equal(stored, created);
      assert.is((await fetch(`${server.url}/health`)).status, 200);
      const after = await send(server.url, 'POST', '/api/user', {
        token,
        json: { name: 'After', email: 'after.burst@example.com' },
      });
      assert.is(after.status, 201);
    } finally {
      await server.close();
    }
  },
);

t.run();
