/** OpenID Connect UserInfo over HTTP: each scope's claims, and RFC 6750's refusals. */
import { createSecretKey } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { clientsFile, OPENID_APP, OPENID_APP_CLIENT } from '../helpers/clients.ts';
import { serverSuite, startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, bearer, login, postToken, USERS, type TokenResponse } from '../helpers/tokens.ts';

const KEY = 'userinfo-test-signing-key-0123456789abcdef';
const APP = OPENID_APP;
/** A client of its own tokens (client_credentials) that may ask `openid`. */
const SERVICE = { id: 'oidc-service', secret: 'oidc-service-secret' } as const;
const CLIENTS = [
  OPENID_APP_CLIENT,
  {
    client_id: SERVICE.id,
    client_secret: bcrypt.hashSync(SERVICE.secret, 4),
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['client_credentials'],
    scope: 'openid read',
  },
];

interface Ctx {
  server: TestServer;
  admin: string;
  /** Epoch seconds just before the server seeded its accounts. */
  started: number;
}
const ctx = {} as Ctx;
const t = suite('GET and POST /userinfo', ctx);

const now = (): number => Math.floor(Date.now() / 1000);

t.before(async () => {
  ctx.started = now();
  ctx.server = await startTestServer({
    'security.signing-key': KEY,
    'security.clients-file': clientsFile(CLIENTS),
    'security.password.bcrypt-cost': '4',
  });
  ctx.admin = (await login(ctx.server.url, USERS.admin)).access_token;
});
t.after(async () => ctx.server?.close());

/** A token of the OpenID client for `user`, granted `scope`. */
const tokenFor = async (scope: string, user: { username: string; password: string } = USERS.john): Promise<string> =>
  (await login(ctx.server.url, user, scope, basic(APP.id, APP.secret))).access_token;

function userInfo(token: string | null, init: { method?: string; body?: string; type?: string } = {}) {
  const headers: Record<string, string> = token === null ? {} : bearer(token);
  if (init.type !== undefined) headers['Content-Type'] = init.type;
  return fetch(`${ctx.server.url}/userinfo`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body === undefined ? {} : { body: init.body }),
  });
}

async function claimsOf(res: Response): Promise<Record<string, unknown>> {
  assert.is(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.is(res.headers.get('cache-control'), 'no-store');
  return (await res.json()) as Record<string, unknown>;
}

/** A 401 or 403 of RFC 6750: the OAuth body, and the challenge naming the same error. */
async function refused(res: Response, status: number, error: string, words?: RegExp): Promise<string> {
  const body = (await res.json()) as { error: string; error_description: string };
  assert.is(res.status, status, JSON.stringify(body));
  assert.is(body.error, error);
  if (words) assert.match(body.error_description, words);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer realm="troupe"/);
  if (error !== 'unauthorized') assert.match(challenge, new RegExp(`error="${error}"`));
  return challenge;
}

/** An access token as the server signs them (its MAC key), with `claims` changed. */
async function forge(claims: Record<string, unknown>): Promise<string> {
  const real = await tokenFor('openid profile');
  const time = now();
  const jwt = ctx.server.config.security.jwt;
  return new SignJWT({
    iss: jwt.issuer,
    aud: jwt.resourceIds,
    sub: 'account:2',
    jti: crypto.randomUUID(),
    iat: time,
    exp: time + 600,
    client_id: APP.id,
    scope: 'openid profile',
    user_name: 'john.doe',
    authorities: ['ADMIN', 'USER'],
    account_id: 2,
    account_version: 0,
    ...claims,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: decodeProtectedHeader(real).kid })
    .sign(createSecretKey(Buffer.from(KEY)));
}

async function admin(method: string, path: string, json?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${ctx.server.url}${path}`, {
    method,
    headers: { ...bearer(ctx.admin), ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
  return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
}

/** A password the policy takes, for a new account named `username`. */
const passwordOf = (username: string): string => `${username.split('').reverse().join('')}-Secret-42`;

/** A new account (USER); its id. */
async function newAccount(username: string, fields: Record<string, unknown> = {}): Promise<number> {
  const made = await admin('POST', '/app/admin/users', {
    username,
    password: passwordOf(username),
    roles: ['USER'],
    ...fields,
  });
  return Number(made['id']);
}

t('GET /userinfo › openid alone → 200 with sub alone, the access token’s sub', async () => {
  const token = await tokenFor('openid');
  const claims = await claimsOf(await userInfo(token));
  assert.equal(claims, { sub: 'account:2' });
  assert.is(claims['sub'], decodeJwt(token).sub);
});

t('GET /userinfo › openid profile → the names, the username and when the profile last changed', async () => {
  const claims = await claimsOf(await userInfo(await tokenFor('openid profile')));
  const { updated_at: updatedAt, ...rest } = claims;
  assert.equal(rest, {
    sub: 'account:2',
    name: 'John Doe',
    given_name: 'John',
    family_name: 'Doe',
    preferred_username: 'john.doe',
  });
  assert.type(updatedAt, 'number');
  assert.ok(Number(updatedAt) >= ctx.started && Number(updatedAt) <= now(), `seeded at start: ${String(updatedAt)}`);
});

t('GET /userinfo › openid email → the email with email_verified false, only once the account has one', async () => {
  const id = await newAccount('kim', { firstName: 'Kim' });
  const user = { username: 'kim', password: passwordOf('kim') };
  assert.equal(await claimsOf(await userInfo(await tokenFor('openid email', user))), { sub: `account:${id}` });
  await admin('PATCH', `/app/admin/users/${id}`, { email: 'Kim@Example.com' });
  assert.equal(await claimsOf(await userInfo(await tokenFor('openid email', user))), {
    sub: `account:${id}`,
    email: 'Kim@Example.com',
    email_verified: false,
  });
});

t('GET /userinfo › an empty name is left out; a change of the profile moves updated_at', async () => {
  const id = await newAccount('lee', { lastName: 'Li' });
  const user = { username: 'lee', password: passwordOf('lee') };
  const before = await claimsOf(await userInfo(await tokenFor('openid profile email', user)));
  assert.equal(Object.keys(before), ['sub', 'name', 'family_name', 'preferred_username', 'updated_at']);
  assert.is(before['name'], 'Li');
  const changed = now();
  await admin('PATCH', `/app/admin/users/${id}`, { firstName: 'Lee', roles: ['USER'] });
  const after = await claimsOf(await userInfo(await tokenFor('openid profile', user)));
  assert.is(after['name'], 'Lee Li');
  assert.ok(Number(after['updated_at']) >= changed, `moved: ${String(after['updated_at'])}`);
  await admin('PATCH', `/app/admin/users/${id}`, { roles: ['USER', 'ADMIN'] });
  const roles = await claimsOf(await userInfo(await tokenFor('openid profile', user)));
  assert.is(roles['updated_at'], after['updated_at'], 'a change of roles alone is no change of the profile');
});

t('GET /userinfo › no claim beyond the granted scopes: openid read, openid profile', async () => {
  assert.equal(await claimsOf(await userInfo(await tokenFor('openid read'))), { sub: 'account:2' });
  const profile = await claimsOf(await userInfo(await tokenFor('openid profile')));
  assert.not.ok('email' in profile || 'email_verified' in profile);
});

t('POST /userinfo › the same claims, the token in the Authorization header; a body is not read', async () => {
  const token = await tokenFor('openid profile');
  const got = await claimsOf(await userInfo(token));
  assert.equal(await claimsOf(await userInfo(token, { method: 'POST' })), got);
  const form = { method: 'POST', type: 'application/x-www-form-urlencoded' };
  assert.equal(await claimsOf(await userInfo(token, { ...form, body: 'scope=email' })), got, 'a form is ignored');
  // RFC 6750 §2.2's form parameter is not a way in: without the header there is no token.
  await refused(await userInfo(null, { ...form, body: `access_token=${token}` }), 401, 'unauthorized');
});

t('GET and POST /userinfo › no token → 401 unauthorized with its challenge', async () => {
  for (const method of ['GET', 'POST']) await refused(await userInfo(null, { method }), 401, 'unauthorized');
});

t('GET and POST /userinfo › a bad or expired token → 401 invalid_token with its challenge', async () => {
  for (const method of ['GET', 'POST']) {
    await refused(await userInfo('not-a-token', { method }), 401, 'invalid_token', /malformed/);
    await refused(await userInfo('abc.def.ghi', { method }), 401, 'invalid_token');
    const expired = await forge({ iat: now() - 7200, exp: now() - 3600 });
    await refused(await userInfo(expired, { method }), 401, 'invalid_token', /expired/);
  }
});

t('GET and POST /userinfo › a token without openid → 403 insufficient_scope, the challenge naming openid', async () => {
  const read = await tokenFor('read');
  for (const method of ['GET', 'POST']) {
    const challenge = await refused(await userInfo(read, { method }), 403, 'insufficient_scope', /openid/);
    assert.match(challenge, /scope="openid"/);
  }
  const original = (await login(ctx.server.url)).access_token;
  await refused(await userInfo(original), 403, 'insufficient_scope');
});

t('GET /userinfo › a client’s own token (client_credentials) → 401 invalid_token; without openid 403', async () => {
  const own = async (scope: string): Promise<string> => {
    const res = await postToken(
      ctx.server.url,
      { grant_type: 'client_credentials', scope },
      { Authorization: basic(SERVICE.id, SERVICE.secret) },
    );
    return ((await res.json()) as TokenResponse).access_token;
  };
  await refused(await userInfo(await own('openid read')), 401, 'invalid_token', /names no account/);
  await refused(await userInfo(await own('read')), 403, 'insufficient_scope');
});

t('GET /userinfo › a disabled or deleted account → 401 invalid_token', async () => {
  for (const [username, change] of [
    ['anne', (id: number) => admin('PATCH', `/app/admin/users/${id}`, { enabled: false })],
    ['bert', (id: number) => admin('DELETE', `/app/admin/users/${id}`)],
  ] as const) {
    const id = await newAccount(username);
    const token = await tokenFor('openid profile', { username, password: passwordOf(username) });
    await claimsOf(await userInfo(token));
    await change(id);
    await refused(await userInfo(token), 401, 'invalid_token');
    await refused(await userInfo(token, { method: 'POST' }), 401, 'invalid_token');
  }
});

t('GET /userinfo › the account read fresh: one that never existed, or a version it never had → 401', async () => {
  // Tokens the resource server's check lets through (no revocation names them): the account's
  // own record refuses them.
  assert.is((await claimsOf(await userInfo(await forge({}))))['sub'], 'account:2', 'forged as the server signs');
  await refused(await userInfo(await forge({ account_id: 999, sub: 'account:999' })), 401, 'invalid_token', /gone/);
  await refused(await userInfo(await forge({ account_version: 5 })), 401, 'invalid_token', /changed/);
});

t.run();

const off = serverSuite('GET /userinfo with security.enabled=false', { 'security.enabled': 'false' });
off('→ 403 access_denied: with security off no token has a holder', async (c) => {
  const res = await fetch(`${c.server.url}/userinfo`);
  assert.is(res.status, 403);
  assert.is(((await res.json()) as { error: string }).error, 'access_denied');
});
off.run();
