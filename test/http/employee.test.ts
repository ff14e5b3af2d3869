import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  caller,
  dayFromToday,
  expectInsufficientScope,
  expectProblem,
  type EmployeeJson,
} from '../helpers/employee-api.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { login, USERS } from '../helpers/tokens.ts';

const ctx = {} as { server: TestServer; rw: string; readOnly: string; writeOnly: string };
const t = suite('employee service: create, get, update, delete', ctx);
const call = caller(() => ctx.server.url);

t.before(async () => {
  ctx.server = await startTestServer();
  ctx.rw = (await login(ctx.server.url, USERS.john)).access_token;
  ctx.readOnly = (await login(ctx.server.url, USERS.john, 'read')).access_token;
  ctx.writeOnly = (await login(ctx.server.url, USERS.john, 'write')).access_token;
});
t.after(async () => ctx.server?.close());

const qs = (params: Record<string, string>): string => new URLSearchParams(params).toString();
const createVia = (method: 'GET' | 'POST', input: Record<string, unknown>, token = ctx.rw): Promise<Response> =>
  method === 'GET'
    ? call('GET', `/api/employee/create?${qs(input as Record<string, string>)}`, { token })
    : call('POST', '/api/employee/create', { token, body: input });
async function created(name = 'Jane Roe', dateOfBirth = '1990-04-12'): Promise<EmployeeJson> {
  const res = await createVia('POST', { name, dateOfBirth });
  assert.is(res.status, 201);
  return (await res.json()) as EmployeeJson;
}

for (const method of ['GET', 'POST'] as const) {
  t(`${method} /api/employee/create › 201 with the record and Location: /api/employee/<id>`, async () => {
    const res = await createVia(method, { name: '  Jane Roe ', dateOfBirth: '1990-04-12' });
    assert.is(res.status, 201);
    const r = (await res.json()) as EmployeeJson;
    assert.equal(Object.keys(r), ['id', 'name', 'dateOfBirth', 'createdAt', 'updatedAt', 'version']);
    assert.match(r.id, /^[0-9a-f]{24}$/);
    assert.equal(
      { name: r.name, dateOfBirth: r.dateOfBirth, version: r.version },
      { name: 'Jane Roe', dateOfBirth: '1990-04-12', version: 1 },
    );
    assert.is(r.createdAt, r.updatedAt);
    assert.is(new Date(r.createdAt).toISOString(), r.createdAt);
    assert.is(res.headers.get('location'), `/api/employee/${r.id}`);
    assert.is(res.headers.get('etag'), '"1"');
  });

  const invalid: [string, Record<string, unknown>, string[]][] = [
    ['name missing', { dateOfBirth: '1990-04-12' }, ['name']],
    ['dateOfBirth missing', { name: 'Jane' }, ['dateOfBirth']],
    ['both missing', {}, ['name', 'dateOfBirth']],
    ['name blank after trimming', { name: '   ', dateOfBirth: '1990-04-12' }, ['name']],
    ['name of 201 characters', { name: 'x'.repeat(201), dateOfBirth: '1990-04-12' }, ['name']],
    ['name with a NUL character', { name: 'Jane\u0000Roe', dateOfBirth: '1990-04-12' }, ['name']],
    ['name with a control character (ESC)', { name: 'Jane\u001bRoe', dateOfBirth: '1990-04-12' }, ['name']],
    ['dateOfBirth 2023-02-30 (not a calendar date)', { name: 'Jane', dateOfBirth: '2023-02-30' }, ['dateOfBirth']],
    ['dateOfBirth not YYYY-MM-DD', { name: 'Jane', dateOfBirth: '12/04/1990' }, ['dateOfBirth']],
    // Two days ahead: the table is made when the file loads, and midnight may pass before the request.
    ['dateOfBirth in the future', { name: 'Jane', dateOfBirth: dayFromToday(2) }, ['dateOfBirth']],
    ['dateOfBirth before 1900-01-01', { name: 'Jane', dateOfBirth: '1899-12-31' }, ['dateOfBirth']],
    ['unknown field', { name: 'Jane', dateOfBirth: '1990-04-12', salary: '1' }, ['salary']],
  ];
  for (const [what, input, fields] of invalid) {
    t(`${method} /api/employee/create › ${what} → 400`, async () => {
      await expectProblem(await createVia(method, input), 400, fields);
    });
  }

  t(`${method} /api/employee/create › a read-only token → 403 insufficient_scope; no token → 401`, async () => {
    await expectInsufficientScope(
      await createVia(method, { name: 'Jane', dateOfBirth: '1990-04-12' }, ctx.readOnly),
      'write',
    );
    assert.is((await call(method, '/api/employee/create')).status, 401);
  });
}

t("POST /api/employee/create › an unknown field → 400 naming it in the house's words, not zod's", async () => {
  const res = await createVia('POST', { name: 'Jane', dateOfBirth: '1990-04-12', salary: '1' });
  assert.is(res.status, 400);
  const body = (await res.json()) as { errors: unknown };
  assert.equal(body.errors, [{ field: 'salary', message: 'is not a field of this request' }]);
});

t('GET /api/employee/create › 1900-01-01 and today are accepted; 200 characters too', async () => {
  for (const input of [
    { name: 'Old', dateOfBirth: '1900-01-01' },
    { name: 'New', dateOfBirth: dayFromToday(0) },
    { name: 'y'.repeat(200), dateOfBirth: '2000-02-29' },
  ]) {
    assert.is((await createVia('GET', input)).status, 201);
  }
});

t('control characters in a name › update and search refuse them too → 400, the same on every store', async () => {
  const r = await created();
  await expectProblem(
    await call('PUT', `/api/employee/update?id=${r.id}`, { token: ctx.rw, body: { name: 'A\u0000B' } }),
    400,
    ['name'],
  );
  for (const name of ['\u0000', 'Jane\nRoe', 'x\u007f'])
    await expectProblem(await call('POST', '/api/employee/search', { token: ctx.rw, body: { name } }), 400, ['name']);
});

t('GET /api/employee/create › a repeated parameter → 400', async () => {
  await expectProblem(
    await call('GET', '/api/employee/create?name=a&name=b&dateOfBirth=1990-04-12', { token: ctx.rw }),
    400,
    ['name'],
  );
});

t('POST /api/employee/create › wrong types → 400 naming each field', async () => {
  await expectProblem(await createVia('POST', { name: 42, dateOfBirth: 19900412 }), 400, ['name', 'dateOfBirth']);
  await expectProblem(await createVia('POST', { name: null, dateOfBirth: ['1990-04-12'] }), 400, [
    'name',
    'dateOfBirth',
  ]);
});

t(
  'POST /api/employee/create › empty body, array body → 400; malformed JSON → 400; other media type → 415',
  async () => {
    await expectProblem(await call('POST', '/api/employee/create', { token: ctx.rw }), 400, ['(body)']);
    await expectProblem(await call('POST', '/api/employee/create', { token: ctx.rw, body: [] }), 400);
    await expectProblem(
      await call('POST', '/api/employee/create', {
        token: ctx.rw,
        body: '{"name":',
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
    );
    await expectProblem(
      await call('POST', '/api/employee/create', {
        token: ctx.rw,
        body: 'name=Jane',
        headers: { 'Content-Type': 'text/plain' },
      }),
      415,
    );
  },
);

t(
  'GET /api/employee/:id › 200 record; unknown → 404; malformed → 400; read scope suffices, write alone does not',
  async () => {
    const r = await created();
    const res = await call('GET', `/api/employee/${r.id}`, { token: ctx.readOnly });
    assert.is(res.status, 200);
    assert.is(res.headers.get('etag'), `"${r.version}"`, 'the version the record is at, for If-Match');
    assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(await res.json(), r);
    assert.equal(
      await (await call('GET', `/api/employee/${r.id.toUpperCase()}`, { token: ctx.rw })).json(),
      r,
      'upper-case hex is the same id',
    );
    await expectProblem(await call('GET', '/api/employee/0123456789abcdef01234567', { token: ctx.rw }), 404);
    await expectProblem(await call('GET', '/api/employee/not-an-id', { token: ctx.rw }), 400, ['id']);
    await expectProblem(await call('GET', '/api/employee/0123456789abcdef0123456', { token: ctx.rw }), 400, ['id']);
    await expectInsufficientScope(await call('GET', `/api/employee/${r.id}`, { token: ctx.writeOnly }), 'read');
  },
);

t('PUT /api/employee/update › id in the query: 200, version + 1, only the given field changes', async () => {
  const r = await created();
  const res = await call('PUT', `/api/employee/update?id=${r.id}`, { token: ctx.rw, body: { name: 'Jane Doe' } });
  assert.is(res.status, 200);
  const u = (await res.json()) as EmployeeJson;
  assert.equal({ ...u, updatedAt: '' }, { ...r, name: 'Jane Doe', version: 2, updatedAt: '' });
  assert.ok(u.updatedAt >= r.updatedAt);
  assert.is(res.headers.get('etag'), '"2"');
});

t('PUT /api/employee/update › id in the body, dateOfBirth only', async () => {
  const r = await created();
  const res = await call('PUT', '/api/employee/update', {
    token: ctx.rw,
    body: { id: r.id, dateOfBirth: '1985-07-01' },
  });
  assert.is(res.status, 200);
  assert.equal(((await res.json()) as EmployeeJson).dateOfBirth, '1985-07-01');
});

t('PUT /api/employee/update › If-Match current → 200; stale → 412; malformed → 400', async () => {
  const r = await created();
  const ok = await call('PUT', `/api/employee/update?id=${r.id}`, {
    token: ctx.rw,
    body: { name: 'V2' },
    headers: { 'If-Match': '"1"' },
  });
  assert.is(ok.status, 200);
  const stale = await call('PUT', `/api/employee/update?id=${r.id}`, {
    token: ctx.rw,
    body: { name: 'Lost' },
    headers: { 'If-Match': '"1"' },
  });
  assert.match((await expectProblem(stale, 412)).detail, /version 2/);
  await expectProblem(
    await call('PUT', `/api/employee/update?id=${r.id}`, {
      token: ctx.rw,
      body: { name: 'X' },
      headers: { 'If-Match': 'one' },
    }),
    400,
    ['If-Match'],
  );
  assert.is(
    ((await (await call('GET', `/api/employee/${r.id}`, { token: ctx.rw })).json()) as EmployeeJson).name,
    'V2',
  );
});

t('PUT /api/employee/update › unknown id → 404; malformed id → 400; no id → 400; ids that differ → 400', async () => {
  const r = await created();
  await expectProblem(
    await call('PUT', '/api/employee/update?id=0123456789abcdef01234567', { token: ctx.rw, body: { name: 'X' } }),
    404,
  );
  await expectProblem(await call('PUT', '/api/employee/update?id=123', { token: ctx.rw, body: { name: 'X' } }), 400, [
    'id',
  ]);
  await expectProblem(await call('PUT', '/api/employee/update', { token: ctx.rw, body: { name: 'X' } }), 400, ['id']);
  await expectProblem(
    await call('PUT', `/api/employee/update?id=${r.id}`, {
      token: ctx.rw,
      body: { id: '0123456789abcdef01234567', name: 'X' },
    }),
    400,
    ['id'],
  );
});

t('PUT /api/employee/update › no change, invalid fields, unknown fields, empty body → 400', async () => {
  const r = await created();
  const put = (body: unknown) => call('PUT', `/api/employee/update?id=${r.id}`, { token: ctx.rw, body });
  await expectProblem(await put({}), 400);
  await expectProblem(await put({ name: '' }), 400, ['name']);
  await expectProblem(await put({ dateOfBirth: '2023-02-30' }), 400, ['dateOfBirth']);
  await expectProblem(await put({ name: 'X', version: 7 }), 400, ['version']);
  await expectProblem(await call('PUT', `/api/employee/update?id=${r.id}`, { token: ctx.rw }), 400);
  await expectProblem(
    await call('PUT', `/api/employee/update?id=${r.id}&x=1`, { token: ctx.rw, body: { name: 'X' } }),
    400,
    ['x'],
  );
});

t('PUT /api/employee/update › a read-only token → 403', async () => {
  const r = await created();
  await expectInsufficientScope(
    await call('PUT', `/api/employee/update?id=${r.id}`, { token: ctx.readOnly, body: { name: 'X' } }),
    'write',
  );
});

t('DELETE /api/employee/delete › id in the query → 204, then GET → 404 and DELETE → 404', async () => {
  const r = await created();
  const res = await call('DELETE', `/api/employee/delete?id=${r.id}`, { token: ctx.rw });
  assert.is(res.status, 204);
  assert.is(await res.text(), '');
  await expectProblem(await call('GET', `/api/employee/${r.id}`, { token: ctx.rw }), 404);
  await expectProblem(await call('DELETE', `/api/employee/delete?id=${r.id}`, { token: ctx.rw }), 404);
});

t('DELETE /api/employee/delete › id in a JSON body → 204', async () => {
  const r = await created();
  assert.is((await call('DELETE', '/api/employee/delete', { token: ctx.rw, body: { id: r.id } })).status, 204);
  await expectProblem(await call('GET', `/api/employee/${r.id}`, { token: ctx.rw }), 404);
});

t(
  'DELETE /api/employee/delete › malformed id → 400; no id → 400; unknown body field → 400; read-only token → 403',
  async () => {
    const r = await created();
    await expectProblem(await call('DELETE', '/api/employee/delete?id=xyz', { token: ctx.rw }), 400, ['id']);
    await expectProblem(await call('DELETE', '/api/employee/delete', { token: ctx.rw }), 400, ['id']);
    await expectProblem(
      await call('DELETE', '/api/employee/delete', { token: ctx.rw, body: { id: r.id, force: true } }),
      400,
      ['force'],
    );
    await expectInsufficientScope(
      await call('DELETE', `/api/employee/delete?id=${r.id}`, { token: ctx.readOnly }),
      'write',
    );
    assert.is((await call('GET', `/api/employee/${r.id}`, { token: ctx.rw })).status, 200);
  },
);

t('an action path with the wrong method → 405 with Allow, from the route table alone', async () => {
  for (const [path, allow] of [
    ['/api/employee/search', 'POST'],
    ['/api/employee/update', 'PUT'],
    ['/api/employee/delete', 'DELETE'],
  ] as const) {
    for (const method of ['GET', 'HEAD', 'PATCH'] as const) {
      const res = await call(method, path, { token: ctx.rw });
      assert.is(res.status, 405, `${method} ${path}`);
      assert.is(res.headers.get('allow'), allow, `${method} ${path}`);
    }
  }
  const put = await call('PUT', '/api/employee/create', { token: ctx.rw, body: {} });
  assert.is(put.status, 405);
  assert.match(put.headers.get('allow') ?? '', /GET.*POST|POST.*GET/);
});

t.run();
