import { createSecretKey } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeProtectedHeader, SignJWT } from 'jose';
import { openSqliteStores } from '../../src/stores/stores.sqlite.ts';
import { serverSuite, startTestServer, type TestServer } from '../helpers/server.ts';
import { bearer, login, USERS } from '../helpers/tokens.ts';

const KEY = 'resource-server-test-key-0123456789abcdef';
const ctx = {} as { server: TestServer; url: string; johnToken: string; adminToken: string };
const t = suite('resource server: /app/**', ctx);

t.before(async () => {
  ctx.server = await startTestServer({ 'security.signing-key': KEY });
  ctx.url = ctx.server.url;
  ctx.johnToken = (await login(ctx.url, USERS.john)).access_token;
  ctx.adminToken = (await login(ctx.url, USERS.admin)).access_token;
});
t.after(async () => ctx.server?.close());

const get = (path: string, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${ctx.url}${path}`, { headers });

/** A token like ours, with `changes` applied, signed with `key` (ours by default). */
async function forge(
  changes: { header?: Record<string, unknown>; claims?: Record<string, unknown>; key?: string } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = ctx.server.config.security.jwt;
  return new SignJWT({
    iss: jwt.issuer,
    aud: jwt.resourceIds,
    sub: 'john.doe',
    jti: crypto.randomUUID(),
    iat: now,
    exp: now + 600,
    client_id: 'troupe-client',
    scope: 'read write',
    user_name: 'john.doe',
    authorities: ['ADMIN', 'USER'],
    account_id: 2,
    account_version: 0,
    ...changes.claims,
  })
    .setProtectedHeader({
      alg: 'HS256',
      typ: 'at+jwt',
      kid: decodeProtectedHeader(ctx.johnToken).kid,
      ...changes.header,
    })
    .sign(createSecretKey(Buffer.from(changes.key ?? KEY)));
}

/** Sends a raw HTTP/1.1 request, so that a header can be repeated. */
async function rawGet(path: string, headerLines: string[]): Promise<{ status: number; head: string; body: string }> {
  const { connect } = await import('node:net');
  const { hostname, port } = new URL(ctx.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        [`GET ${path} HTTP/1.1`, `Host: ${hostname}`, 'Connection: close', ...headerLines, '', ''].join('\r\n'),
      );
    });
    let data = '';
    socket.on('data', (c: Buffer) => {
      data += c.toString();
    });
    socket.on('end', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body });
    });
    socket.on('error', reject);
  });
}

async function expectInvalidToken(res: Response, description?: RegExp): Promise<void> {
  assert.is(res.status, 401);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer realm="troupe", error="invalid_token", error_description="[^"]+"$/);
  const body = (await res.json()) as { error: string; error_description: string };
  assert.is(body.error, 'invalid_token');
  if (description) assert.match(body.error_description, description);
}

t('GET /app/listAll › both users with roles, ordered by id, and no password hash by default', async () => {
  const res = await get('/app/listAll', bearer(ctx.johnToken));
  assert.is(res.status, 200);
  const users = (await res.json()) as {
    id: number;
    username: string;
    password?: string;
    firstName: string;
    lastName: string;
    roles: { id: number; roleName: string; description: string }[];
  }[];
  assert.equal(
    users.map((u) => u.username),
    ['admin', 'john.doe'],
  );
  assert.equal(
    users.map((u) => u.id),
    [1, 2],
  );
  assert.equal(
    users[1]?.roles.map((r) => r.roleName),
    ['ADMIN', 'USER'],
  );
  assert.ok(
    users.every((u) => !('password' in u)),
    'a BCrypt hash was sent without app.list-all.include-password-hash=true',
  );
  assert.equal(Object.keys(users[0] ?? {}), ['id', 'username', 'firstName', 'lastName', 'roles']);
  assert.type(users[0]?.roles[0]?.description, 'string');
});

t(
  'GET /app/listAll › a change to users or roles made by another process is served on the very next request',
  async () => {
    const list = async (): Promise<{ username: string; roles: { roleName: string }[] }[]> =>
      (await get('/app/listAll', bearer(ctx.johnToken))).json() as Promise<
        { username: string; roles: { roleName: string }[] }[]
      >;
    assert.equal(
      (await list()).map((u) => u.username),
      ['admin', 'john.doe'],
    );
    assert.equal(
      (await list()).map((u) => u.username),
      ['admin', 'john.doe'],
      'kept between requests',
    );
    // Another process on the same data (another instance, say): its own connection to the file.
    const other = openSqliteStores(ctx.server.dataDir, { synchronous: 'NORMAL' });
    try {
      await other.accounts.saveAccount({
        username: 'grace',
        password: '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK',
        roles: [{ roleName: 'USER' }],
        updatedAt: 1,
      });
      assert.equal(
        (await list()).map((u) => u.username),
        ['admin', 'john.doe', 'grace'],
      );
      await other.accounts.saveAccount({
        username: 'grace',
        password: '$2b$10$ou0V7wzSMMLBjrgg7HZmN.2c1W8VDzb41pZwpwGZFDFcWOOQ1NkEK',
        roles: [{ roleName: 'ADMIN' }],
        updatedAt: 1,
      });
      assert.equal(
        (await list()).find((u) => u.username === 'grace')?.roles.map((r) => r.roleName),
        ['ADMIN'],
      );
      await other.accounts.saveRole({ roleName: 'USER', description: 'changed elsewhere' });
      const john = (await list()).find((u) => u.username === 'john.doe') as unknown as {
        roles: { roleName: string; description: string }[];
      };
      assert.is(john.roles.find((r) => r.roleName === 'USER')?.description, 'changed elsewhere');
    } finally {
      await other.close();
    }
  },
);

t('no token → 401 unauthorized with a bare Bearer challenge', async () => {
  const res = await get('/app/listAll');
  assert.is(res.status, 401);
  assert.is(res.headers.get('www-authenticate'), 'Bearer realm="troupe"');
  assert.equal(await res.json(), {
    error: 'unauthorized',
    error_description: 'Full authentication is required to access this resource',
  });
});

t('an unknown path under /app needs a token too (401), and is 404 with one', async () => {
  assert.is((await get('/app/nothing-here')).status, 401);
  const res = await get('/app/nothing-here', bearer(ctx.johnToken));
  assert.is(res.status, 404);
  assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
});

t('another scheme (Basic) counts as no token → 401 unauthorized', async () => {
  const res = await get('/app/listAll', { Authorization: 'Basic dXNlcjpwYXNz' });
  assert.is(res.status, 401);
  assert.is(((await res.json()) as { error: string }).error, 'unauthorized');
});

t('the scheme name is case-insensitive', async () => {
  assert.is((await get('/app/listAll', { Authorization: `bEaReR ${ctx.johnToken}` })).status, 200);
});

t('invalid tokens → 401 invalid_token: malformed, tampered, wrong key', async () => {
  await expectInvalidToken(await get('/app/listAll', bearer('not a token')), /malformed/);
  await expectInvalidToken(await get('/app/listAll', bearer('abc.def.ghi')));
  const [h, p, s] = ctx.johnToken.split('.');
  const claims = JSON.parse(Buffer.from(p ?? '', 'base64url').toString()) as Record<string, unknown>;
  const tampered = Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url');
  await expectInvalidToken(await get('/app/listAll', bearer(`${h}.${tampered}.${s}`)), /signature/);
  await expectInvalidToken(
    await get('/app/listAll', bearer(await forge({ key: 'another-key-that-is-long-enough-0123456789' }))),
    /signature/,
  );
  await expectInvalidToken(
    await get('/app/listAll', bearer(await forge({ header: { kid: undefined } }))),
    /names no key/,
  );
  await expectInvalidToken(await get('/app/listAll', bearer(await forge({ header: { kid: 'another' } }))), /unknown/);
});

t('invalid tokens → 401 invalid_token: expired, future iat, wrong aud, iss, typ, alg none', async () => {
  const now = Math.floor(Date.now() / 1000);
  await expectInvalidToken(
    await get('/app/listAll', bearer(await forge({ claims: { iat: now - 7200, exp: now - 3600 } }))),
    /expired/,
  );
  await expectInvalidToken(
    await get('/app/listAll', bearer(await forge({ claims: { iat: now + 3600, exp: now + 7200 } }))),
    /iat/,
  );
  await expectInvalidToken(await get('/app/listAll', bearer(await forge({ claims: { exp: undefined } }))), /exp/);
  for (const account of [{ account_id: undefined }, { account_version: undefined }, { account_id: '2' }])
    await expectInvalidToken(await get('/app/listAll', bearer(await forge({ claims: account }))), /names no account/);

  await expectInvalidToken(await get('/app/listAll', bearer(await forge({ claims: { nbf: now + 3600 } }))), /nbf/);
  assert.is(
    (await get('/app/listAll', bearer(await forge({ claims: { nbf: now + 10, iat: now + 10 } })))).status,
    200,
    'within 30 s of skew',
  );
  await expectInvalidToken(await get('/app/listAll', bearer(await forge({ claims: { aud: 'someone-else' } }))), /aud/);
  await expectInvalidToken(
    await get('/app/listAll', bearer(await forge({ claims: { iss: 'https://evil.example' } }))),
    /iss/,
  );
  await expectInvalidToken(await get('/app/listAll', bearer(await forge({ header: { typ: 'JWT' } }))), /typ/);
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${ctx.johnToken.split('.')[1]}.`;
  await expectInvalidToken(await get('/app/listAll', bearer(none)));
  assert.is(
    (await get('/app/listAll', bearer(await forge()))).status,
    200,
    'the forging helper itself makes valid tokens',
  );
});

t('two Authorization headers → 400 invalid_request', async () => {
  const res = await rawGet('/app/listAll', [
    `Authorization: Bearer ${ctx.johnToken}`,
    `Authorization: Bearer ${ctx.adminToken}`,
  ]);
  assert.is(res.status, 400);
  assert.match(res.head, /WWW-Authenticate: Bearer realm="troupe", error="invalid_request"/i);
  assert.match(res.body, /"error":"invalid_request"/);
  assert.is((await rawGet('/app/listAll', [`Authorization: Bearer ${ctx.johnToken}`])).status, 200);
});

t('a token in the query string too → 400 invalid_request', async () => {
  const res = await get(`/app/listAll?access_token=${ctx.johnToken}`, bearer(ctx.johnToken));
  assert.is(res.status, 400);
  assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
  assert.is(((await res.json()) as { error: string }).error, 'invalid_request');
});

t('GET /app/admin and /app/user › john.doe (ADMIN, USER) reaches both, as text/plain', async () => {
  const admin = await get('/app/admin', bearer(ctx.johnToken));
  assert.is(admin.status, 200);
  assert.is(admin.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.match(await admin.text(), /john\.doe/);
  const user = await get('/app/user', bearer(ctx.johnToken));
  assert.is(user.status, 200);
  assert.match(await user.text(), /john\.doe/);
});

t('missing role → 403 access_denied: admin (ADMIN only) on /app/user', async () => {
  assert.is((await get('/app/admin', bearer(ctx.adminToken))).status, 200);
  const res = await get('/app/user', bearer(ctx.adminToken));
  assert.is(res.status, 403);
  assert.is(res.headers.get('www-authenticate'), null);
  assert.equal(await res.json(), { error: 'access_denied', error_description: 'Access is denied' });
});

t('roles come from the token: a token without authorities is denied both greetings', async () => {
  const token = await forge({ claims: { authorities: [] } });
  assert.is((await get('/app/admin', bearer(token))).status, 403);
  assert.is((await get('/app/user', bearer(token))).status, 403);
  assert.is((await get('/app/listAll', bearer(token))).status, 200);
});

t.run();

const userOnly = serverSuite('resource server: a USER-only user', {
  'app.initial-data': 'test/fixtures/initial-data-user-only.json',
});

userOnly('GET /app/admin → 403 access_denied; GET /app/user → 200', async (c) => {
  const token = (await login(c.server.url, { username: 'jane', password: 'jane-password' })).access_token;
  const admin = await fetch(`${c.server.url}/app/admin`, { headers: bearer(token) });
  assert.is(admin.status, 403);
  assert.equal(await admin.json(), { error: 'access_denied', error_description: 'Access is denied' });
  assert.is((await fetch(`${c.server.url}/app/user`, { headers: bearer(token) })).status, 200);
});

userOnly.run();

const open = serverSuite('resource server: security.enabled=false', { 'security.enabled': 'false' });

open('GET /app/listAll answers without a token ("before security is added"), still without hashes', async (c) => {
  const res = await fetch(`${c.server.url}/app/listAll`);
  assert.is(res.status, 200);
  const users = (await res.json()) as Record<string, unknown>[];
  assert.is(users.length, 2);
  assert.is(users[0]?.['password'], undefined);
  assert.is((await fetch(`${c.server.url}/app/admin`)).status, 200);
});

open(
  'PUT /app/me/password with security.enabled=false → 403 access_denied: no token, so no account to change',
  async (c) => {
    const res = await fetch(`${c.server.url}/app/me/password`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ currentPassword: 'john-password', newPassword: 'john-new-password' }),
    });
    assert.is(res.status, 403);
    assert.is(((await res.json()) as { error: string }).error, 'access_denied');
  },
);

open('PUT /app/me/password with security.enabled=false › 403 before its body is read or checked', async (c) => {
  for (const [type, body] of [
    ['application/json', '{}'],
    ['application/json', '{"currentPassword":'],
    ['text/plain', 'x'],
  ]) {
    const res = await fetch(`${c.server.url}/app/me/password`, {
      method: 'PUT',
      headers: { 'Content-Type': type ?? '' },
      body,
    });
    assert.is(res.status, 403, `${type} ${body}`);
    assert.is(((await res.json()) as { error: string }).error, 'access_denied');
  }
});

open.run();

const seed = serverSuite('resource server: app.list-all.include-password-hash=true', {
  'app.list-all.include-password-hash': 'true',
});

seed("GET /app/listAll › the seed's output, BCrypt hashes included, when configured so", async (c) => {
  const token = (await login(c.server.url)).access_token;
  const users = (await (await fetch(`${c.server.url}/app/listAll`, { headers: bearer(token) })).json()) as {
    password?: string;
  }[];
  assert.is(users.length, 2);
  for (const u of users) assert.match(u.password ?? '', /^\$2[aby]\$10\$/);
});

seed.run();
