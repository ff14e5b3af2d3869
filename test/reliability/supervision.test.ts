/**
 * Faults survived: a store that throws while an actor handles a request. The request gets a 500
 * problem (reply-then-resume answers the caller at once, never a timeout), the next request to the
 * same actor succeeds, what was stored before is intact, and the process stays up.
 */
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultBudget } from '../../src/messaging/supervision.ts';
import { breakInserts } from '../helpers/faults.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { login, postToken, USERS } from '../helpers/tokens.ts';
import { send, type UserActivityJson, type UserJson } from '../helpers/user-data.ts';

interface Ctx {
  server: TestServer;
  token: string;
}
const ctx = {} as Ctx;
const t = suite('reliability: supervision over a real server', ctx);

t.before(async () => {
  // A short ask timeout: a crash that left its caller waiting would show up as a 503, not a 500.
  ctx.server = await startTestServer({ 'actors.ask-timeout-ms': '3000' });
  ctx.token = (await login(ctx.server.url)).access_token;
});
t.after(async () => ctx.server?.close());

const api = (method: string, path: string, json?: unknown) =>
  send(ctx.server.url, method, path, { token: ctx.token, json });

async function expectInternal(res: { status: number; headers: Headers; body: unknown }): Promise<void> {
  assert.is(res.status, 500, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.is((res.body as { status: number }).status, 500);
  assert.not.match(JSON.stringify(res.body), /injected fault/);
  assert.is(
    (res.body as { requestId: string }).requestId,
    res.headers.get('x-request-id'),
    'the problem carries the request id',
  );
  assert.not.match(JSON.stringify(res.body), /\bat \S+ \(|\.ts:\d+/, 'no stack trace');
}

async function alive(): Promise<void> {
  assert.is((await fetch(`${ctx.server.url}/health`)).status, 200);
}

t('EmployeeActor › a store fault is a 500, the next create succeeds, earlier records are intact', async () => {
  const before = await api('POST', '/api/employee/create', { name: 'Kept Before', dateOfBirth: '1980-01-01' });
  assert.is(before.status, 201);
  const fault = breakInserts(ctx.server.dataDir, 'employees');
  try {
    await expectInternal(await api('POST', '/api/employee/create', { name: 'Lost', dateOfBirth: '1981-01-01' }));
  } finally {
    fault.heal();
  }
  assert.is((await api('POST', '/api/employee/create', { name: 'After', dateOfBirth: '1982-01-01' })).status, 201);
  const id = (before.body as { id: string }).id;
  assert.equal((await api('GET', `/api/employee/${id}`)).body, before.body);
  const lost = await api('POST', '/api/employee/search', { name: 'Lost' });
  assert.equal((lost.body as { items: unknown[] }).items, []);
  const metrics = await (await fetch(`${ctx.server.url}/metrics`)).text();
  assert.match(metrics, /actor_messages_total\{actor="employees",outcome="failed"\} 1\n/, 'the crash is counted');
  await alive();
});

t('UserActor › a store fault is a 500, the next create succeeds, earlier users are intact', async () => {
  const before = await api('POST', '/api/user', { name: 'Ann', email: 'ann.sup@example.com' });
  assert.is(before.status, 201);
  const fault = breakInserts(ctx.server.dataDir, 'user_data');
  try {
    await expectInternal(await api('POST', '/api/user', { name: 'Lost', email: 'lost.sup@example.com' }));
  } finally {
    fault.heal();
  }
  assert.is(
    (await api('POST', '/api/user', { name: 'Lost', email: 'lost.sup@example.com' })).status,
    201,
    'the email was not taken by the failed write',
  );
  const read = await api('GET', `/api/users/activity?userId=${(before.body as UserJson).id}`);
  assert.equal((read.body as UserActivityJson).user, before.body);
  await alive();
});

t(
  "ActivityActor › a fault in a user's child is a 500; the child carries on and its history is the store's",
  async () => {
    const user = (await api('POST', '/api/user', { name: 'Bo', email: 'bo.sup@example.com' })).body as UserJson;
    const first = await api('POST', '/api/users/activity', { userId: user.id, type: 'FIRST' });
    assert.is(first.status, 201);
    const fault = breakInserts(ctx.server.dataDir, 'user_activity');
    try {
      await expectInternal(await api('POST', '/api/users/activity', { userId: user.id, type: 'LOST' }));
    } finally {
      fault.heal();
    }
    const last = await api('POST', '/api/users/activity', { userId: user.id, type: 'LAST' });
    assert.is(last.status, 201);
    const history = (await api('GET', `/api/users/activity?userId=${user.id}`)).body as UserActivityJson;
    assert.equal(
      history.activities.map((a) => a.type),
      ['LAST', 'FIRST', 'USER_CREATED'],
    );
    await alive();
  },
);

t('TokenActor › a fault while issuing a token is a 500 at once (not a timeout); the next login succeeds', async () => {
  const fault = breakInserts(ctx.server.dataDir, 'refresh_tokens');
  try {
    const res = await postToken(ctx.server.url, { grant_type: 'password', ...USERS.admin });
    assert.is(res.status, 500, await res.text());
  } finally {
    fault.heal();
  }
  const res = await postToken(ctx.server.url, { grant_type: 'password', ...USERS.admin });
  assert.is(res.status, 200);
  const listAll = await fetch(`${ctx.server.url}/app/listAll`, { headers: { Authorization: `Bearer ${ctx.token}` } });
  assert.is(listAll.status, 200);
  await alive();
});

t.run();

const budget = suite('reliability: a top-level actor past its restart budget', {} as Ctx & { logs: string[] });

budget.before(async (c) => {
  c.logs = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      c.logs.push(chunk.toString());
      done();
    },
  });
  c.server = await startTestServer({ 'actors.ask-timeout-ms': '3000', 'logging.level': 'warn' }, undefined, sink);
  c.token = (await login(c.server.url)).access_token;
});
budget.after(async (c) => c.server?.close());

budget('escalates: the root starts it again, fresh, and the service goes on', async (c) => {
  const call = (method: string, path: string, json?: unknown) =>
    send(c.server.url, method, path, { token: c.token, json });
  const before = await call('POST', '/api/employee/create', { name: 'Kept Before', dateOfBirth: '1980-01-01' });
  assert.is(before.status, 201);
  const fault = breakInserts(c.server.dataDir, 'employees');
  try {
    // The default budget: 10 crashes a minute are resumed; the 11th escalates.
    for (let i = 0; i <= defaultBudget.maxCrashes; i++)
      assert.is((await call('POST', '/api/employee/create', { name: 'Lost', dateOfBirth: '1981-01-01' })).status, 500);
  } finally {
    fault.heal();
  }
  const lines = c.logs.map((line) => JSON.parse(line) as { msg: string; actor?: string; decision?: string });
  assert.equal(
    lines.filter((l) => l.msg === 'actor crashed').map((l) => l.decision),
    [...Array<string>(defaultBudget.maxCrashes).fill('resume'), 'escalate'],
  );
  assert.ok(
    lines.some((l) => l.msg === 'actor stopped past its restart budget; started again' && l.actor === 'employees'),
    'the root decided',
  );
  assert.is((await call('POST', '/api/employee/create', { name: 'After', dateOfBirth: '1982-01-01' })).status, 201);
  const id = (before.body as { id: string }).id;
  assert.equal((await call('GET', `/api/employee/${id}`)).body, before.body);
});

budget.run();
