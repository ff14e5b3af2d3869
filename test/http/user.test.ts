import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { login } from '../helpers/tokens.ts';
import { errorFields, send, type Sent, type UserJson } from '../helpers/user-data.ts';

const ctx = {} as { server: TestServer; token: string; readToken: string };
const t = suite('user-data service: /api/user', ctx);

t.before(async () => {
  ctx.server = await startTestServer();
  ctx.token = (await login(ctx.server.url)).access_token;
  ctx.readToken = (await login(ctx.server.url, undefined, 'read')).access_token;
});
t.after(async () => ctx.server?.close());

let counter = 0;
const uniqueEmail = (): string => `user${++counter}-${Date.now()}@example.com`;
const api = (
  method: string,
  path: string,
  options: { json?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<Sent> => send(ctx.server.url, method, path, { token: ctx.token, ...options });

async function createUser(name = 'Ann Lee', email = uniqueEmail()): Promise<UserJson> {
  const res = await api('POST', '/api/user', { json: { name, email } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.body as UserJson;
}

function expectProblem(res: Sent, status: number, fields?: string[]): void {
  assert.is(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.is((res.body as { status: number }).status, status);
  if (fields) assert.equal(errorFields(res.body).sort(), [...fields].sort());
}

t('POST /api/user › 201 user with a 24-hex id, version 1, ETag and Location', async () => {
  const email = uniqueEmail();
  const res = await api('POST', '/api/user', { json: { name: '  Ann Lee  ', email: `  ${email} ` } });
  assert.is(res.status, 201);
  const user = res.body as UserJson;
  assert.equal(Object.keys(user).sort(), ['createdAt', 'email', 'id', 'name', 'updatedAt', 'version']);
  assert.match(user.id, /^[0-9a-f]{24}$/);
  assert.equal([user.name, user.email, user.version], ['Ann Lee', email, 1]);
  assert.is(user.createdAt, user.updatedAt);
  assert.is(new Date(user.createdAt).toISOString(), user.createdAt);
  assert.is(res.headers.get('etag'), '"1"');
  assert.is(res.headers.get('location'), `/api/users/activity?userId=${user.id}`);
});

t('ids are read in either case, as lower case, like employee ids', async () => {
  const user = await createUser();
  const upper = user.id.toUpperCase();
  const put = await api('PUT', '/api/user', { json: { id: upper, name: 'Ann Upper' } });
  assert.is(put.status, 200, JSON.stringify(put.body));
  assert.is((put.body as UserJson).id, user.id);
  const read = await api('GET', `/api/users/activity?userId=${upper}`);
  assert.is(read.status, 200);
  assert.is((read.body as { user: UserJson }).user.id, user.id);
  expectProblem(await api('GET', `/api/users/activity?userId=${user.id.slice(1)}g`), 400, ['userId']);
  assert.is((await api('DELETE', `/api/user?id=${upper}`)).status, 204);
});

t('POST /api/user › invalid fields → 400 naming each field', async () => {
  expectProblem(await api('POST', '/api/user', { json: { email: uniqueEmail() } }), 400, ['name']);
  expectProblem(await api('POST', '/api/user', { json: { name: '   ', email: uniqueEmail() } }), 400, ['name']);
  expectProblem(await api('POST', '/api/user', { json: { name: 'x'.repeat(201), email: uniqueEmail() } }), 400, [
    'name',
  ]);
  expectProblem(await api('POST', '/api/user', { json: { name: 42, email: 'not-an-email' } }), 400, ['name', 'email']);
  expectProblem(
    await api('POST', '/api/user', { json: { name: 'Ann', email: `${'a'.repeat(64)}@${'b'.repeat(190)}.com` } }),
    400,
    ['email'],
  );
  expectProblem(await api('POST', '/api/user', { json: { name: 'Ann', email: uniqueEmail(), role: 'ADMIN' } }), 400, [
    'role',
  ]);
  assert.is((await api('POST', '/api/user', { json: { name: 'x'.repeat(200), email: uniqueEmail() } })).status, 201);
});

t('POST /api/user › not a JSON object → 400; malformed JSON → 400; another media type → 415', async () => {
  expectProblem(await api('POST', '/api/user', { json: [{ name: 'Ann', email: uniqueEmail() }] }), 400);
  expectProblem(await api('POST', '/api/user', { json: '' }), 400);
  expectProblem(await api('POST', '/api/user', { json: 'null' }), 400);
  expectProblem(await api('POST', '/api/user', { json: '{"name": "Ann",' }), 400);
  expectProblem(await api('POST', '/api/user', { json: 'name=Ann', headers: { 'Content-Type': 'text/plain' } }), 415);
});

t('POST /api/user › email taken, compared case-insensitively → 409', async () => {
  const user = await createUser();
  const res = await api('POST', '/api/user', { json: { name: 'Other', email: user.email.toUpperCase() } });
  expectProblem(res, 409);
  assert.is((res.body as { type: string }).type, 'urn:problem:troupe:user.email_taken');
});

t('POST /api/user › concurrent creates with one email: exactly one 201, the rest 409', async () => {
  const email = uniqueEmail();
  const variants = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? email : email.toUpperCase()));
  const results = await Promise.all(
    variants.map((e) => api('POST', '/api/user', { json: { name: 'Racer', email: e } })),
  );
  assert.equal(results.map((r) => r.status).sort(), [201, ...Array<number>(19).fill(409)]);
});

t('POST /api/user › no token → 401; a token without the write scope → 403 insufficient_scope', async () => {
  const anonymous = await api('POST', '/api/user', { json: { name: 'Ann', email: uniqueEmail() }, token: '' });
  assert.is(anonymous.status, 401);
  assert.is(anonymous.headers.get('www-authenticate'), 'Bearer realm="troupe"');
  const readOnly = await api('POST', '/api/user', {
    json: { name: 'Ann', email: uniqueEmail() },
    token: ctx.readToken,
  });
  assert.is(readOnly.status, 403);
  assert.match(readOnly.headers.get('www-authenticate') ?? '', /error="insufficient_scope".*scope="write"/);
  assert.is((readOnly.body as { error: string }).error, 'insufficient_scope');
});

t('PUT /api/user › 200 with the changes, version + 1, a new ETag', async () => {
  const user = await createUser();
  const email = uniqueEmail();
  const res = await api('PUT', '/api/user', { json: { id: user.id, name: ' Ann Smith ', email } });
  assert.is(res.status, 200);
  const updated = res.body as UserJson;
  assert.equal({ ...updated, updatedAt: '' }, { ...user, name: 'Ann Smith', email, version: 2, updatedAt: '' });
  assert.ok(updated.updatedAt >= user.updatedAt);
  assert.is(res.headers.get('etag'), '"2"');
  const nameOnly = await api('PUT', '/api/user', { json: { id: user.id, name: 'Ann' } });
  assert.equal(
    [(nameOnly.body as UserJson).name, (nameOnly.body as UserJson).email, (nameOnly.body as UserJson).version],
    ['Ann', email, 3],
  );
});

t('PUT /api/user › If-Match with the current version → 200; a stale one → 412; a malformed one → 400', async () => {
  const user = await createUser();
  const current = await api('PUT', '/api/user', { json: { id: user.id, name: 'B' }, headers: { 'If-Match': '"1"' } });
  assert.is(current.status, 200);
  const stale = await api('PUT', '/api/user', { json: { id: user.id, name: 'C' }, headers: { 'If-Match': '"1"' } });
  expectProblem(stale, 412);
  assert.is((stale.body as { type: string }).type, 'urn:problem:troupe:user.version_conflict');
  expectProblem(
    await api('PUT', '/api/user', { json: { id: user.id, name: 'C' }, headers: { 'If-Match': 'two' } }),
    400,
    ['If-Match'],
  );
  const after = await api('PUT', '/api/user', { json: { id: user.id, name: 'D' }, headers: { 'If-Match': 'W/"2"' } });
  assert.is((after.body as UserJson).version, 3);
});

t('PUT /api/user › unknown id → 404; malformed id, nothing to change, unknown field → 400', async () => {
  expectProblem(await api('PUT', '/api/user', { json: { id: '0123456789abcdef01234567', name: 'X' } }), 404);
  const malformed = await api('PUT', '/api/user', { json: { id: 'nope', name: 'X' } });
  expectProblem(malformed, 400, ['id']);
  assert.is(
    (malformed.body as { errors: unknown[] }).errors.length,
    1,
    'one error for the id, not one per failed check',
  );
  expectProblem(await api('PUT', '/api/user', { json: { name: 'X' } }), 400, ['id']);
  const user = await createUser();
  expectProblem(await api('PUT', '/api/user', { json: { id: user.id } }), 400, ['(body)']);
  expectProblem(await api('PUT', '/api/user', { json: { id: user.id, name: 'X', version: 9 } }), 400, ['version']);
  expectProblem(await api('PUT', '/api/user', { json: { id: user.id, email: 'bad' } }), 400, ['email']);
});

t('PUT /api/user › an email another user has → 409', async () => {
  const [a, b] = [await createUser(), await createUser()];
  expectProblem(await api('PUT', '/api/user', { json: { id: a.id, email: b.email.toUpperCase() } }), 409);
  const own = await api('PUT', '/api/user', { json: { id: a.id, email: a.email.toUpperCase() } });
  assert.is(own.status, 200);
});

t('PUT /api/user › a token without the write scope → 403', async () => {
  const user = await createUser();
  assert.is((await api('PUT', '/api/user', { json: { id: user.id, name: 'X' }, token: ctx.readToken })).status, 403);
});

t('DELETE /api/user › id in the query → 204; again → 404', async () => {
  const user = await createUser();
  const res = await api('DELETE', `/api/user?id=${user.id}`);
  assert.is(res.status, 204);
  assert.is(res.body, undefined);
  expectProblem(await api('DELETE', `/api/user?id=${user.id}`), 404);
});

t('DELETE /api/user › id in the body → 204; the email is free again', async () => {
  const user = await createUser();
  assert.is((await api('DELETE', '/api/user', { json: { id: user.id } })).status, 204);
  assert.is((await api('POST', '/api/user', { json: { name: 'Again', email: user.email } })).status, 201);
});

t('DELETE /api/user › missing, malformed, or disagreeing ids and unknown fields → 400', async () => {
  const [a, b] = [await createUser(), await createUser()];
  expectProblem(await api('DELETE', '/api/user'), 400, ['id']);
  expectProblem(await api('DELETE', '/api/user?id=xyz'), 400, ['id']);
  expectProblem(await api('DELETE', `/api/user?id=${a.id}`, { json: { id: b.id } }), 400, ['id']);
  expectProblem(await api('DELETE', '/api/user', { json: { id: a.id, force: true } }), 400, ['force']);
  expectProblem(await api('DELETE', `/api/user?id=${a.id}&cascade=1`), 400, ['cascade']);
  assert.is((await api('DELETE', `/api/user?id=${a.id}`, { json: { id: a.id } })).status, 204);
});

t("DELETE /api/user › the user's activity goes with it", async () => {
  const user = await createUser();
  assert.is((await api('POST', '/api/users/activity', { json: { userId: user.id, type: 'LOGIN' } })).status, 201);
  assert.is((await api('DELETE', `/api/user?id=${user.id}`)).status, 204);
  expectProblem(await api('GET', `/api/users/activity?userId=${user.id}`), 404);
  expectProblem(await api('POST', '/api/users/activity', { json: { userId: user.id, type: 'LOGIN' } }), 404);
});

t('DELETE /api/user › a token without the write scope → 403', async () => {
  const user = await createUser();
  assert.is((await api('DELETE', `/api/user?id=${user.id}`, { token: ctx.readToken })).status, 403);
});

t('GET /api/user › 405 with an Allow header', async () => {
  const res = await api('GET', '/api/user');
  assert.is(res.status, 405);
  assert.equal((res.headers.get('allow') ?? '').split(/,\s*/).sort(), ['DELETE', 'POST', 'PUT']);
});

t.run();

const off = suite('user-data service switched off');
off('SERVICES without userdata → /api/user is 404', async () => {
  const server = await startTestServer({ services: 'secured' });
  try {
    const token = (await login(server.url)).access_token;
    const res = await send(server.url, 'POST', '/api/user', { token, json: { name: 'Ann', email: 'ann@example.com' } });
    assert.is(res.status, 404);
  } finally {
    await server.close();
  }
});
off.run();
