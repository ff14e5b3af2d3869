import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { login } from '../helpers/tokens.ts';
import {
  errorFields,
  send,
  type ActivityJson,
  type Sent,
  type UserActivityJson,
  type UserJson,
} from '../helpers/user-data.ts';

const ctx = {} as { server: TestServer; token: string; readToken: string; writeToken: string };
const t = suite('user-data service: /api/users/activity', ctx);

t.before(async () => {
  ctx.server = await startTestServer();
  ctx.token = (await login(ctx.server.url)).access_token;
  ctx.readToken = (await login(ctx.server.url, undefined, 'read')).access_token;
  ctx.writeToken = (await login(ctx.server.url, undefined, 'write')).access_token;
});
t.after(async () => ctx.server?.close());

let counter = 0;
const api = (method: string, path: string, options: { json?: unknown; token?: string } = {}): Promise<Sent> =>
  send(ctx.server.url, method, path, { token: ctx.token, ...options });

async function createUser(): Promise<UserJson> {
  const res = await api('POST', '/api/user', {
    json: { name: 'Ann Lee', email: `activity${++counter}-${Date.now()}@example.com` },
  });
  assert.is(res.status, 201);
  return res.body as UserJson;
}

async function recordActivity(userId: string, type = 'LOGIN', detail?: unknown): Promise<ActivityJson> {
  const res = await api('POST', '/api/users/activity', {
    json: { userId, type, ...(detail === undefined ? {} : { detail }) },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body as ActivityJson;
}

async function read(query: string, token = ctx.token): Promise<Sent> {
  return api('GET', `/api/users/activity?${query}`, { token });
}

function expectProblem(res: Sent, status: number, fields?: string[]): void {
  assert.is(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  if (fields) assert.equal(errorFields(res.body).sort(), [...fields].sort());
}

t(
  'GET /api/users/activity › the user and its activity newest first: USER_UPDATED (changed fields), then USER_CREATED',
  async () => {
    const user = await createUser();
    const put = await api('PUT', '/api/user', { json: { id: user.id, name: 'Ann Smith' } });
    const res = await read(`userId=${user.id}`);
    assert.is(res.status, 200);
    const body = res.body as UserActivityJson;
    assert.equal(Object.keys(body).sort(), ['activities', 'nextCursor', 'user']);
    assert.equal(body.user, put.body);
    assert.equal(
      body.activities.map((a) => [a.type, a.detail, a.userId]),
      [
        ['USER_UPDATED', { fields: ['name'] }, user.id],
        ['USER_CREATED', {}, user.id],
      ],
    );
    for (const a of body.activities) {
      assert.equal(Object.keys(a).sort(), ['at', 'detail', 'id', 'type', 'userId']);
      assert.match(a.id, /^[0-9a-f]{24}$/);
      assert.is(new Date(a.at).toISOString(), a.at);
    }
    assert.is(body.nextCursor, null);
  },
);

t('GET /api/users/activity › limit and the before cursor visit every activity exactly once, newest first', async () => {
  const user = await createUser();
  const recorded = [];
  for (let i = 0; i < 11; i++) recorded.unshift((await recordActivity(user.id, 'STEP', { i })).id);
  const all = [
    ...recorded,
    ((await read(`userId=${user.id}&limit=500`)).body as UserActivityJson).activities.at(-1)?.id,
  ];
  const seen: string[] = [];
  let query = `userId=${user.id}&limit=4`;
  for (let page = 0; page < 10; page++) {
    const body = (await read(query)).body as UserActivityJson;
    seen.push(...body.activities.map((a) => a.id));
    if (body.nextCursor === null) break;
    query = `userId=${user.id}&limit=4&before=${encodeURIComponent(body.nextCursor)}`;
  }
  assert.equal(seen, all);
  assert.is(seen.length, 12);
  assert.is(((await read(`userId=${user.id}`)).body as UserActivityJson).activities.length, 12);
});

t('GET /api/users/activity › missing or malformed userId, bad limit, bad cursor, unknown parameter → 400', async () => {
  const user = await createUser();
  const other = await createUser();
  for (let i = 0; i < 2; i++) await recordActivity(other.id);
  const otherCursor = ((await read(`userId=${other.id}&limit=1`)).body as UserActivityJson).nextCursor ?? '';
  expectProblem(await read(''), 400, ['userId']);
  expectProblem(await read('userId=42'), 400, ['userId']);
  for (const limit of ['0', '501', 'ten', '-1', '2.5'])
    expectProblem(await read(`userId=${user.id}&limit=${limit}`), 400, ['limit']);
  expectProblem(await read(`userId=${user.id}&before=not-a-cursor!`), 400, ['before']);
  expectProblem(await read(`userId=${user.id}&before=${Buffer.from('{"s":"x"}').toString('base64url')}`), 400, [
    'before',
  ]);
  expectProblem(await read(`userId=${user.id}&before=${otherCursor}`), 400, ['before']);
  expectProblem(await read(`userId=${user.id}&page=2`), 400, ['page']);
  expectProblem(await read(`userId=${user.id}&userId=${user.id}`), 400, ['userId']);
  assert.is((await read(`userId=${user.id}&limit=500`)).status, 200);
  assert.is((await read(`userId=${user.id}&limit=1`)).status, 200);
});

t('GET /api/users/activity › unknown user → 404', async () => {
  const res = await read('userId=0123456789abcdef01234567');
  expectProblem(res, 404);
  assert.is((res.body as { type: string }).type, 'urn:problem:troupe:user.not_found');
});

t('GET /api/users/activity › no token → 401; a token without the read scope → 403', async () => {
  const user = await createUser();
  assert.is((await read(`userId=${user.id}`, '')).status, 401);
  const res = await read(`userId=${user.id}`, ctx.writeToken);
  assert.is(res.status, 403);
  assert.match(res.headers.get('www-authenticate') ?? '', /scope="read"/);
  assert.is((await read(`userId=${user.id}`, ctx.readToken)).status, 200);
});

t("POST /api/users/activity › 201 activity, first in the user's history", async () => {
  const user = await createUser();
  const res = await api('POST', '/api/users/activity', {
    json: { userId: user.id, type: 'PASSWORD_CHANGED', detail: { via: 'email', n: 2 } },
  });
  assert.is(res.status, 201);
  const activity = res.body as ActivityJson;
  assert.equal(
    { ...activity, id: '', at: '' },
    { id: '', userId: user.id, type: 'PASSWORD_CHANGED', detail: { via: 'email', n: 2 }, at: '' },
  );
  assert.match(activity.id, /^[0-9a-f]{24}$/);
  const history = (await read(`userId=${user.id}`)).body as UserActivityJson;
  assert.equal(history.activities[0], activity);
  assert.equal((await recordActivity(user.id, 'A1')).detail, {});
});

t(
  'POST /api/users/activity › type not UPPER_SNAKE 1–64, reserved type, detail not an object or over 4 KiB, unknown field → 400',
  async () => {
    const user = await createUser();
    const bad = async (json: unknown, fields: string[]): Promise<void> =>
      expectProblem(await api('POST', '/api/users/activity', { json }), 400, fields);
    for (const type of ['', 'login', 'Login', '_LOGIN', 'LOG__IN', 'LOGIN_', 'LOG-IN', 'A'.repeat(65), 42])
      await bad({ userId: user.id, type }, ['type']);
    await bad({ userId: user.id }, ['type']);
    await bad({ userId: user.id, type: 'USER_CREATED' }, ['type']);
    for (const detail of [[1], 'text', null, 7]) await bad({ userId: user.id, type: 'LOGIN', detail }, ['detail']);
    const filler = (bytes: number) => ({ s: 'x'.repeat(bytes - '{"s":""}'.length) });
    await bad({ userId: user.id, type: 'LOGIN', detail: filler(4097) }, ['detail']);
    await bad({ userId: user.id, type: 'LOGIN', at: '2020-01-01T00:00:00Z' }, ['at']);
    await bad({ userId: 'abc', type: 'LOGIN' }, ['userId']);
    await bad({ type: 'LOGIN' }, ['userId']);
    await recordActivity(user.id, 'A'.repeat(64), filler(4096));
    await recordActivity(user.id, 'X9_2FA_ON');
  },
);

t('POST /api/users/activity › unknown user → 404', async () => {
  const res = await api('POST', '/api/users/activity', { json: { userId: '0123456789abcdef01234567', type: 'LOGIN' } });
  expectProblem(res, 404);
  assert.is((res.body as { type: string }).type, 'urn:problem:troupe:user.not_found');
});

t(
  'POST /api/users/activity › no token → 401; a token without the write scope → 403; another media type → 415',
  async () => {
    const user = await createUser();
    assert.is(
      (await api('POST', '/api/users/activity', { json: { userId: user.id, type: 'LOGIN' }, token: '' })).status,
      401,
    );
    assert.is(
      (await api('POST', '/api/users/activity', { json: { userId: user.id, type: 'LOGIN' }, token: ctx.readToken }))
        .status,
      403,
    );
    const res = await fetch(`${ctx.server.url}/api/users/activity`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ctx.token}`, 'Content-Type': 'text/plain' },
      body: 'LOGIN',
    });
    assert.is(res.status, 415);
  },
);

t('/api/users/activity › other methods → 405 with an Allow header', async () => {
  const res = await api('DELETE', '/api/users/activity');
  assert.is(res.status, 405);
  assert.equal((res.headers.get('allow') ?? '').split(/,\s*/).sort(), ['GET', 'HEAD', 'POST']);
});

t.run();

const durable = suite('user-data service: activity history is durable');

durable("the history survives idle stops of the user's actor and a restart of the server", async () => {
  let server = await startTestServer({ 'actors.activity.idle-ms': '5' });
  const dataDir = server.dataDir;
  try {
    const token = (await login(server.url)).access_token;
    const user = (
      await send(server.url, 'POST', '/api/user', { token, json: { name: 'Dura', email: 'dura@example.com' } })
    ).body as UserJson;
    for (const type of ['ONE', 'TWO', 'THREE'])
      assert.is(
        (await send(server.url, 'POST', '/api/users/activity', { token, json: { userId: user.id, type } })).status,
        201,
      );
    const before = (await send(server.url, 'GET', `/api/users/activity?userId=${user.id}`, { token }))
      .body as UserActivityJson;
    assert.equal(
      before.activities.map((a) => a.type),
      ['THREE', 'TWO', 'ONE', 'USER_CREATED'],
    );
    await server.stop();
    server = await startTestServer({}, dataDir);
    const again = await login(server.url);
    const after = (
      await send(server.url, 'GET', `/api/users/activity?userId=${user.id}`, { token: again.access_token })
    ).body as UserActivityJson;
    assert.equal(after, before);
  } finally {
    await server.close();
  }
});

durable.run();
