import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, bearer, login, postToken, USERS, type TokenResponse } from '../helpers/tokens.ts';

interface Ctx {
  server: TestServer;
  admin: string;
  log: string[];
}
const ctx = {} as Ctx;
const t = suite('account administration over HTTP', ctx);

t.before(async () => {
  ctx.log = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      ctx.log.push(chunk.toString('utf8'));
      done();
    },
  });
  ctx.server = await startTestServer({ 'security.password.bcrypt-cost': '4' }, undefined, sink);
  ctx.admin = (await login(ctx.server.url, USERS.admin)).access_token;
});
t.after(async () => ctx.server?.close());

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}
async function call(method: string, path: string, json?: unknown, token: string | null = ctx.admin): Promise<Answer> {
  const headers: Record<string, string> = token === null ? {} : bearer(token);
  if (json !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${ctx.server.url}${path}`, {
    method,
    headers,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await res.text();
  const isJson = text !== '' && /json/.test(res.headers.get('content-type') ?? '');
  return {
    status: res.status,
    body: isJson ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: res.headers,
  };
}
/**
 * An account's password in these tests: its username's letters shifted by 13 (ROT13), then
 * `-password`, since the policy refuses a password that holds the username.
 */
const passwordOf = (username: string): string =>
  `${username.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97))}-password`;
const create = (username: string, roles = ['USER'], password = passwordOf(username)) =>
  call('POST', '/app/admin/users', { username, password, roles });
const loginAs = (username: string, password = passwordOf(username)): Promise<TokenResponse> =>
  login(ctx.server.url, { username, password });
const introspect = async (token: string): Promise<unknown> =>
  (
    await fetch(`${ctx.server.url}/oauth/introspect`, {
      method: 'POST',
      headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    })
  ).json();
const code = (a: Answer): unknown => a.body['type'];

t('POST /app/admin/users › 201 with Location; never a password or hash in the answer', async () => {
  const made = await call('POST', '/app/admin/users', {
    username: 'ann',
    password: passwordOf('ann'),
    firstName: 'Ann',
    roles: ['USER'],
  });
  assert.is(made.status, 201);
  assert.is(made.headers.get('location'), `/app/admin/users/${String(made.body['id'])}`);
  assert.equal(made.body, {
    id: made.body['id'],
    username: 'ann',
    firstName: 'Ann',
    lastName: '',
    email: null,
    roles: ['USER'],
    enabled: true,
  });
  assert.ok((await loginAs('ann')).access_token);
});

t(
  'POST /app/admin/users › 409 username taken, 400 unknown role, 400 password under 8 or over 72 bytes, 400 invalid',
  async () => {
    await create('bob');
    const taken = await create('bob');
    assert.is(taken.status, 409);
    assert.is(code(taken), 'urn:problem:troupe:account.username_taken');
    assert.is(code(await create('cid', ['NOPE'])), 'urn:problem:troupe:role.unknown');
    const long = await create('cid', ['USER'], 'x'.repeat(73));
    assert.is(long.status, 400);
    assert.is(code(long), 'urn:problem:troupe:password.invalid');
    assert.is((await create('cid', ['USER'], 'short')).status, 400);
    const invalid = await call('POST', '/app/admin/users', { username: '', password: 'cid-password', roles: 'USER' });
    assert.is(invalid.status, 400);
    assert.is(code(invalid), 'urn:problem:troupe:validation');
    assert.is((await call('GET', '/app/admin/users?username=cid')).body['items'] instanceof Array, true);
    assert.equal((await call('GET', '/app/admin/users?username=cid')).body['items'], [], 'nothing was created');
  },
);

t('access is checked before the handler: a USER, a read-only token, no token: nothing is created', async () => {
  await create('dee');
  const user = (await loginAs('dee')).access_token;
  const denied = await call(
    'POST',
    '/app/admin/users',
    { username: 'eve', password: passwordOf('eve'), roles: ['ADMIN'] },
    user,
  );
  assert.is(denied.status, 403);
  assert.equal(denied.body, { error: 'access_denied', error_description: 'Access is denied' });
  const readOnly = (await login(ctx.server.url, USERS.admin, 'read')).access_token;
  const scoped = await call(
    'POST',
    '/app/admin/users',
    { username: 'eve', password: passwordOf('eve'), roles: [] },
    readOnly,
  );
  assert.is(scoped.status, 403);
  assert.is(scoped.body['error'], 'insufficient_scope');
  assert.is(
    (await call('POST', '/app/admin/users', { username: 'eve', password: passwordOf('eve'), roles: [] }, null)).status,
    401,
  );
  assert.is((await call('GET', '/app/admin/users', undefined, user)).status, 403);
  assert.is((await call('DELETE', '/app/admin/users/1', undefined, user)).status, 403);
  assert.equal((await call('GET', '/app/admin/users?username=eve')).body['items'], []);
  assert.is((await call('GET', '/app/admin/users/1')).body['enabled'], true);
});

t(
  'GET /app/admin/users › pages with limit and cursor, filtered by username prefix; 400 for a bad cursor or limit',
  async () => {
    for (const u of ['pa1', 'pa2', 'pa3']) await create(u);
    const first = await call('GET', '/app/admin/users?username=pa&limit=2');
    assert.equal(
      (first.body['items'] as { username: string }[]).map((a) => a.username),
      ['pa1', 'pa2'],
    );
    assert.type(first.body['nextCursor'], 'string');
    const next = await call('GET', `/app/admin/users?username=pa&limit=2&cursor=${String(first.body['nextCursor'])}`);
    assert.equal(
      (next.body['items'] as { username: string }[]).map((a) => a.username),
      ['pa3'],
    );
    assert.is(next.body['nextCursor'], null);
    assert.not.match(JSON.stringify(first.body), /password|\$2[aby]\$/);
    const badCursor = await call('GET', '/app/admin/users?cursor=abc');
    assert.is(badCursor.status, 400);
    assert.is(code(badCursor), 'urn:problem:troupe:validation');
    const badLimit = await call('GET', '/app/admin/users?limit=0');
    assert.is(badLimit.status, 400);
    assert.is(code(badLimit), 'urn:problem:troupe:validation');
  },
);

t('GET /app/admin/users/{id} › 200; 404 unknown or malformed id', async () => {
  const one = await call('GET', '/app/admin/users/2');
  assert.equal(one.body, {
    id: 2,
    username: 'john.doe',
    firstName: 'John',
    lastName: 'Doe',
    email: null,
    roles: ['ADMIN', 'USER'],
    enabled: true,
  });
  assert.is((await call('GET', '/app/admin/users/99999')).status, 404);
  assert.is(code(await call('GET', '/app/admin/users/abc')), 'urn:problem:troupe:account.not_found');
});

t(
  'PATCH enabled=false › every token refused at once (401 invalid_token, introspection inactive), login as a wrong password',
  async () => {
    const id = (await create('fay')).body['id'] as number;
    const grant = await loginAs('fay');
    assert.is((await call('GET', '/app/listAll', undefined, grant.access_token)).status, 200);
    const patched = await call('PATCH', `/app/admin/users/${id}`, { enabled: false });
    assert.is(patched.status, 200);
    assert.is(patched.body['enabled'], false);
    const refused = await fetch(`${ctx.server.url}/app/listAll`, { headers: bearer(grant.access_token) });
    assert.is(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /invalid_token/);
    assert.equal(await introspect(grant.access_token), { active: false });
    assert.equal(await introspect(grant.refresh_token ?? ''), { active: false });
    const refresh = await postToken(ctx.server.url, {
      grant_type: 'refresh_token',
      refresh_token: grant.refresh_token ?? '',
    });
    assert.is(refresh.status, 400);
    const disabled = await postToken(ctx.server.url, {
      grant_type: 'password',
      username: 'fay',
      password: passwordOf('fay'),
    });
    const wrong = await postToken(ctx.server.url, { grant_type: 'password', username: 'fay', password: 'not-her-pw' });
    assert.is(disabled.status, wrong.status);
    assert.equal(await disabled.json(), await wrong.json());
  },
);

t(
  'PATCH roles › older access tokens refused; a refresh carries the new roles; 400 unknown role, 404 unknown id',
  async () => {
    const id = (await create('gus')).body['id'] as number;
    const grant = await loginAs('gus');
    assert.is((await call('GET', '/app/admin', undefined, grant.access_token)).status, 403);
    assert.is((await call('PATCH', `/app/admin/users/${id}`, { roles: ['USER', 'ADMIN'] })).status, 200);
    assert.is((await call('GET', '/app/listAll', undefined, grant.access_token)).status, 401);
    const refreshed = await postToken(ctx.server.url, {
      grant_type: 'refresh_token',
      refresh_token: grant.refresh_token ?? '',
    });
    const next = (await refreshed.json()) as TokenResponse;
    assert.is((await call('GET', '/app/admin', undefined, next.access_token)).status, 200);
    const ghost = await call('PATCH', `/app/admin/users/${id}`, { roles: ['USER', 'GHOST'] });
    assert.is(code(ghost), 'urn:problem:troupe:role.unknown');
    assert.is(ghost.body['detail'], 'A role named "GHOST" is not a role');
    const unknown = await call('PATCH', '/app/admin/users/99999', { enabled: true });
    assert.is(unknown.status, 404);
    assert.is(code(unknown), 'urn:problem:troupe:account.not_found');
    const sneaky = await call('PATCH', `/app/admin/users/${id}`, { password: 'sneaky-password' });
    assert.is(sneaky.status, 400);
    assert.is(code(sneaky), 'urn:problem:troupe:validation');
  },
);

t(
  'PUT /app/admin/users/{id}/password › 204, every login ends, the new password logs in; 400 over 72 bytes; 404',
  async () => {
    const id = (await create('hal')).body['id'] as number;
    const grant = await loginAs('hal');
    const set = await call('PUT', `/app/admin/users/${id}/password`, { password: 'hazel-new-password' });
    assert.is(set.status, 204);
    assert.is((await call('GET', '/app/listAll', undefined, grant.access_token)).status, 401);
    assert.ok((await loginAs('hal', 'hazel-new-password')).access_token);
    const long = await call('PUT', `/app/admin/users/${id}/password`, { password: 'é'.repeat(37) });
    assert.is(long.status, 400);
    assert.is(code(long), 'urn:problem:troupe:password.invalid');
    const unknown = await call('PUT', '/app/admin/users/99999/password', { password: 'long-enough' });
    assert.is(unknown.status, 404);
    assert.is(code(unknown), 'urn:problem:troupe:account.not_found');
  },
);

t('logins › listed with sid, client and times; one ends (404 for an unknown sid), then every one', async () => {
  const id = (await create('ivy')).body['id'] as number;
  const a = await loginAs('ivy');
  const b = await loginAs('ivy');
  const listed = await call('GET', `/app/admin/users/${id}/sessions`);
  const logins = listed.body as unknown as { sid: string; clientId: string }[];
  assert.is(logins.length, 2);
  assert.is(logins[0]?.clientId, 'troupe-client');
  const sidOfA = logins[0]?.sid;
  assert.is((await call('DELETE', `/app/admin/users/${id}/sessions/${sidOfA ?? ''}`)).status, 204);
  const left = (await call('GET', `/app/admin/users/${id}/sessions`)).body as unknown as { sid: string }[];
  assert.equal(left.length, 1);
  assert.is.not(left[0]?.sid, sidOfA);
  assert.is(
    code(await call('DELETE', `/app/admin/users/${id}/sessions/${sidOfA ?? ''}`)),
    'urn:problem:troupe:login.not_found',
  );
  assert.is((await call('DELETE', `/app/admin/users/${id}/sessions`)).status, 204);
  assert.is((await call('GET', '/app/listAll', undefined, a.access_token)).status, 401);
  assert.is((await call('GET', '/app/listAll', undefined, b.access_token)).status, 401);
  assert.equal((await call('GET', `/app/admin/users/${id}/sessions`)).body, []);
  for (const method of ['GET', 'DELETE']) {
    const unknown = await call(method, '/app/admin/users/99999/sessions');
    assert.is(unknown.status, 404, method);
    assert.is(code(unknown), 'urn:problem:troupe:account.not_found', method);
  }
});

t('DELETE /app/admin/users/{id}/lockout › 204 and the account logs in again; 404', async () => {
  const id = (await create('jay')).body['id'] as number;
  for (let i = 0; i < 10; i++)
    await postToken(ctx.server.url, { grant_type: 'password', username: 'jay', password: 'wrong-password' });
  const locked = await postToken(ctx.server.url, {
    grant_type: 'password',
    username: 'jay',
    password: passwordOf('jay'),
  });
  assert.is(locked.status, 429);
  assert.is((await call('DELETE', `/app/admin/users/${id}/lockout`)).status, 204);
  assert.ok((await loginAs('jay')).access_token);
  const unknown = await call('DELETE', '/app/admin/users/99999/lockout');
  assert.is(unknown.status, 404);
  assert.is(code(unknown), 'urn:problem:troupe:account.not_found');
});

t('an account id is canonical decimal only: every other spelling is 404 on every account route', async () => {
  const id = (await create('spelled')).body['id'] as number;
  const digits = String(id);
  const spellings = [
    `0x${id.toString(16)}`,
    `0X${id.toString(16)}`,
    `0o${id.toString(8)}`,
    `0b${id.toString(2)}`,
    `${digits}.0`,
    `${digits}.`,
    `0${digits}`,
    `00${digits}`,
    `+${digits}`,
    `%2B${digits}`,
    `${digits}e0`,
    `${id * 10}e-1`,
    `%20${digits}`,
    `${digits}%20`,
    `%${digits.charCodeAt(0).toString(16)}${digits.slice(1)}`,
    [...digits].map((d) => String.fromCharCode(0xff10 + Number(d))).join(''), // full-width digits
    '0',
    '-1',
    '9007199254740992',
    '99999999999999999999',
    'Infinity',
  ];
  const routes: [string, string, unknown?][] = [
    ['GET', ''],
    ['PATCH', '', { firstName: 'Changed' }],
    ['PUT', '/password', { password: 'changed-password' }],
    ['GET', '/sessions'],
    ['DELETE', '/sessions'],
    ['DELETE', '/sessions/x'],
    ['DELETE', '/lockout'],
    ['GET', '/consents'],
    ['DELETE', '/consents/x'],
    ['DELETE', ''],
  ];
  for (const spelling of spellings)
    for (const [method, tail, json] of routes) {
      const answer = await call(method, `/app/admin/users/${spelling}${tail}`, json);
      assert.is(answer.status, 404, `${method} /app/admin/users/${spelling}${tail}`);
      assert.is(code(answer), 'urn:problem:troupe:account.not_found');
    }
  const untouched = await call('GET', `/app/admin/users/${digits}`);
  assert.is(untouched.status, 200, 'the canonical spelling names it');
  assert.is(untouched.body['firstName'], '', 'no other spelling changed it');
  assert.ok((await loginAs('spelled')).access_token, 'nor its password');
});

t('roles › listed; created 201; 409 taken; 400 a malformed name', async () => {
  const made = await call('POST', '/app/admin/roles', { roleName: 'AUDITOR', description: 'reads logs' });
  assert.is(made.status, 201);
  assert.equal(made.body, { roleName: 'AUDITOR', description: 'reads logs' });
  const taken = await call('POST', '/app/admin/roles', { roleName: 'AUDITOR' });
  assert.is(taken.status, 409);
  assert.is(code(taken), 'urn:problem:troupe:role.name_taken');
  const malformed = await call('POST', '/app/admin/roles', { roleName: 'bad name' });
  assert.is(malformed.status, 400);
  assert.is(code(malformed), 'urn:problem:troupe:validation');
  assert.is((malformed.body['errors'] as { field: string }[] | undefined)?.[0]?.field, 'roleName');
  const roles = (await call('GET', '/app/admin/roles')).body as unknown as { roleName: string }[];
  assert.equal(
    roles.map((r) => r.roleName),
    ['ADMIN', 'USER', 'AUDITOR'],
  );
  assert.is((await create('kit', ['AUDITOR'])).status, 201);
});

t('PUT /app/me/password › 204, the other logins end and this one stays; 400 wrong current or invalid new', async () => {
  await create('lou');
  const mine = await loginAs('lou');
  const other = await loginAs('lou');
  const change = (json: unknown) => call('PUT', '/app/me/password', json, mine.access_token);
  assert.is(
    code(await change({ currentPassword: 'wrong-password', newPassword: 'linden-new-password' })),
    'urn:problem:troupe:password.incorrect',
  );
  assert.is(
    code(await change({ currentPassword: passwordOf('lou'), newPassword: 'short' })),
    'urn:problem:troupe:password.invalid',
  );
  assert.is(
    code(await change({ currentPassword: passwordOf('lou'), newPassword: 'x'.repeat(73) })),
    'urn:problem:troupe:password.invalid',
    'over 72 bytes: the limit BCrypt sets, as at the token endpoint',
  );
  assert.is(
    code(
      await change({ currentPassword: `${passwordOf('lou')}${'x'.repeat(72)}`, newPassword: 'linden-new-password' }),
    ),
    'urn:problem:troupe:password.incorrect',
    'a current password over 72 bytes is never compared, though its first bytes are right',
  );
  assert.is((await change({ currentPassword: passwordOf('lou'), newPassword: 'linden-new-password' })).status, 204);
  // Every access token minted before the change is refused; this login goes on through its refresh token.
  assert.is((await call('GET', '/app/listAll', undefined, mine.access_token)).status, 401);
  assert.is((await call('GET', '/app/listAll', undefined, other.access_token)).status, 401);
  const refresh = (grant: TokenResponse) =>
    postToken(ctx.server.url, { grant_type: 'refresh_token', refresh_token: grant.refresh_token ?? '' });
  const next = (await (await refresh(mine)).json()) as TokenResponse;
  assert.is((await call('GET', '/app/listAll', undefined, next.access_token)).status, 200);
  assert.is((await refresh(other)).status, 400);
  assert.ok((await loginAs('lou', 'linden-new-password')).access_token);
  assert.is((await call('PUT', '/app/me/password', { currentPassword: 'x', newPassword: 'y' }, null)).status, 401);
});

t(
  'the password policy › the username as the password, or in it: 400 password.invalid on create, reset and own change',
  async () => {
    const refused = async (answer: Promise<Answer>, route: string, password: string) => {
      const { status, body } = await answer;
      assert.is(status, 400, route);
      assert.is(body['type'], 'urn:problem:troupe:password.invalid', route);
      assert.is(body['status'], 400, route);
      assert.is(body['detail'], 'The password contains the username; choose another', route);
      assert.not.ok(JSON.stringify(body).includes(password), `${route}: the password is not repeated`);
    };
    await refused(create('quentin.b', ['USER'], 'quentin.b'), 'create', 'quentin.b');
    await refused(create('quentin.b', ['USER'], 'Quentin.B-2024'), 'create', 'Quentin.B-2024');
    assert.equal((await call('GET', '/app/admin/users?username=quentin')).body['items'], [], 'nothing was created');
    const id = (await create('quentin.b')).body['id'] as number;
    const own = (await loginAs('quentin.b')).access_token;
    await refused(call('PUT', `/app/admin/users/${id}/password`, { password: 'QUENTIN.B' }), 'reset', 'QUENTIN.B');
    const change = { currentPassword: passwordOf('quentin.b'), newPassword: 'my name: quentin b' };
    await refused(call('PUT', '/app/me/password', change, own), 'own', change.newPassword);
    assert.ok((await loginAs('quentin.b')).access_token, 'the password is unchanged');
  },
);

t('the password policy › create, reset and own change each refuse with password.invalid naming the rule', async () => {
  const refusals: [password: string, rule: RegExp][] = [
    ['ééééééé', /at least 8 characters/], // 14 bytes, yet 7 characters
    ['Password1', /most common passwords/], // `password1`, in another case
    ['ｑｗｅｒｔｙｕｉｏｐ', /most common passwords/], // `qwertyuiop`, full width
    ['tab\there-password', /control characters/],
    ['x'.repeat(73), /at most 72 bytes/],
    [' '.repeat(8), /at least 8 characters, not counting blanks/],
    ['password\u200b1', /most common passwords/], // `password1`, a zero-width space added
    ['my-troupe-login', /contains the service's name/],
    ['aaaaaaaaaa', /mostly one repeated character/],
    ['abcdefghijk', /only runs or sequences/],
    ['xq7xq7xq7', /repeats a short block/],
  ];
  const id = (await create('pam')).body['id'] as number;
  const own = (await loginAs('pam')).access_token;
  for (const [password, rule] of refusals) {
    const answers = {
      create: await create('pia', ['USER'], password),
      reset: await call('PUT', `/app/admin/users/${id}/password`, { password }),
      own: await call('PUT', '/app/me/password', { currentPassword: passwordOf('pam'), newPassword: password }, own),
    };
    for (const [route, answer] of Object.entries(answers)) {
      assert.is(answer.status, 400, `${route}: ${rule.source}`);
      assert.is(code(answer), 'urn:problem:troupe:password.invalid', route);
      assert.match(String(answer.body['detail']), rule, route);
      assert.not.ok(JSON.stringify(answer.body).includes(password), `${route}: the password is not repeated`);
    }
  }
  assert.equal((await call('GET', '/app/admin/users?username=pia')).body['items'], [], 'nothing was created');
  assert.ok((await loginAs('pam')).access_token, 'the password is unchanged');
  const accepted = await create('pia', ['USER'], 'ñandú-ñandú'); // 11 characters, 15 bytes
  assert.is(accepted.status, 201);
  assert.ok((await loginAs('pia', 'ñandú-ñandú')).access_token);
});

t(
  'DELETE /app/admin/users/{id} › 204 and its tokens refused; 404; the last enabled ADMIN: 409 to disable, demote, delete',
  async () => {
    const id = (await create('max')).body['id'] as number;
    const grant = await loginAs('max');
    assert.is((await call('DELETE', `/app/admin/users/${id}`)).status, 204);
    assert.is((await call('GET', '/app/listAll', undefined, grant.access_token)).status, 401);
    assert.is((await call('DELETE', `/app/admin/users/${id}`)).status, 404);
    const gus = (await call('GET', '/app/admin/users?username=gus')).body['items'] as { id: number }[];
    await call('PATCH', `/app/admin/users/${gus[0]?.id ?? 0}`, { roles: ['USER'] });
    assert.is((await call('PATCH', '/app/admin/users/2', { roles: ['USER'] })).status, 200);
    ctx.admin = (await login(ctx.server.url, USERS.admin)).access_token;
    const last = await call('PATCH', '/app/admin/users/1', { enabled: false });
    assert.is(last.status, 409);
    assert.is(code(last), 'urn:problem:troupe:account.last_admin');
    const demote = await call('PATCH', '/app/admin/users/1', { roles: ['USER'] });
    assert.is(demote.status, 409);
    assert.is(code(demote), 'urn:problem:troupe:account.last_admin');
    const remove = await call('DELETE', '/app/admin/users/1');
    assert.is(remove.status, 409);
    assert.is(code(remove), 'urn:problem:troupe:account.last_admin');
    assert.is((await call('GET', '/app/admin/users/1')).body['enabled'], true);
  },
);

t('every change is logged with the acting admin, the target and the action, never a password or hash', () => {
  const events = ctx.log.filter((line) => line.includes('"account event'));
  const created = events.map((l) => JSON.parse(l) as { account: { action: string; actor: string; target: string } });
  assert.ok(
    created.some(
      (e) => e.account.action === 'account.created' && e.account.actor === 'admin' && e.account.target === 'ann',
    ),
  );
  assert.ok(created.some((e) => e.account.action === 'account.updated' && e.account.target === 'fay'));
  assert.ok(created.some((e) => e.account.action === 'account.password_changed' && e.account.actor === 'lou'));
  const all = ctx.log.join('');
  for (const secret of [passwordOf('ann'), 'hazel-new-password', 'linden-new-password', 'sneaky-password'])
    assert.not.ok(all.includes(secret), secret);
  assert.not.match(all, /\$2[aby]\$\d\d\$/);
});

t('the initial data in development: no warning, its published passwords pass the policy', () => {
  const warned = ctx.log
    .map((l) => JSON.parse(l) as { level: number; msg: string; account?: unknown })
    .filter((l) => l.level === 40 && l.msg.includes('password policy'));
  assert.equal(warned, []);
});

t.run();
