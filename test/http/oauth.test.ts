import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { serverSuite, startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, bearer, login, postToken, USERS } from '../helpers/tokens.ts';

const ctx = {} as { server: TestServer; url: string };
const t = suite('POST /oauth/token', ctx);

t.before(async () => {
  ctx.server = await startTestServer();
  ctx.url = ctx.server.url;
});
t.after(async () => ctx.server?.close());

const PASSWORD = { grant_type: 'password', ...USERS.john };

async function expectError(res: Response, status: number, error: string, description?: RegExp): Promise<void> {
  assert.is(res.status, status);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await res.json()) as { error: string; error_description: string };
  assert.is(body.error, error);
  assert.type(body.error_description, 'string');
  if (description) assert.match(body.error_description, description);
}

t('password grant › 200 with the token response and no-store headers', async () => {
  const res = await postToken(ctx.url, PASSWORD);
  assert.is(res.status, 200);
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.is(res.headers.get('pragma'), 'no-cache');
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(Object.keys(body).sort(), ['access_token', 'expires_in', 'jti', 'refresh_token', 'scope', 'token_type']);
  assert.is(body['token_type'], 'Bearer');
  assert.is(body['scope'], 'read write');
  assert.ok((body['expires_in'] as number) >= 3590 && (body['expires_in'] as number) <= 3600);
});

t('access token › header alg/typ/kid and every claim of the contract', async () => {
  const tokens = await login(ctx.url);
  const header = decodeProtectedHeader(tokens.access_token);
  assert.is(header.alg, 'ES256', 'with no configured key, the generated key set signs with ES256');
  assert.is(header.typ, 'at+jwt');
  const jwks = (await (await fetch(`${ctx.url}/.well-known/jwks.json`)).json()) as {
    keys: { kid: string; alg: string }[];
  };
  assert.equal(
    jwks.keys.map((k) => k.alg),
    ['ES256', 'RS256'],
    'the access key, then the id_token key',
  );
  assert.is(jwks.keys[0]?.kid, header.kid);
  const c = decodeJwt(tokens.access_token);
  assert.is(c.iss, ctx.server.config.security.jwt.issuer);
  assert.is(c.sub, `account:${String(c['account_id'])}`, "an account's subject, from its id");
  assert.is(c['user_name'], 'john.doe');
  assert.is(c.aud, 'troupe-api');
  assert.is(c.jti, tokens.jti);
  assert.is(c['client_id'], 'troupe-client');
  assert.is(c['scope'], 'read write');
  assert.is(c['user_name'], 'john.doe');
  assert.equal(c['authorities'], ['ADMIN', 'USER']);
  assert.is((c.exp ?? 0) - (c.iat ?? 0), 3600);
  assert.match(
    String(c['sid']),
    /^[0-9a-f-]{36}$/,
    'sid names the login, so that revoking it refuses all of its tokens',
  );
  assert.is(c['account_id'], 2, "john.doe's account id: a username created again is another account");
  assert.is(c['account_version'], 0, "the account's security version the token was minted from");
  assert.is(Object.keys(c).length, 13, `claims: ${Object.keys(c).join(', ')}`);
});

t('client_secret_post › client credentials in the body are accepted', async () => {
  const res = await postToken(ctx.url, { ...PASSWORD, client_id: 'troupe-client', client_secret: 'troupe-secret' }, {});
  assert.is(res.status, 200);
});

t('no client credentials → 401 invalid_client with a Basic challenge', async () => {
  const res = await postToken(ctx.url, PASSWORD, {});
  assert.is(res.headers.get('www-authenticate'), 'Basic realm="troupe"');
  await expectError(res, 401, 'invalid_client');
});

t('malformed client credentials → 401 invalid_client', async () => {
  await expectError(await postToken(ctx.url, PASSWORD, { Authorization: 'Basic !!!' }), 401, 'invalid_client');
  await expectError(
    await postToken(ctx.url, PASSWORD, { Authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` }),
    401,
    'invalid_client',
  );
});

t('wrong client secret → 401 invalid_client', async () => {
  const res = await postToken(ctx.url, PASSWORD, { Authorization: basic('troupe-client', 'wrong') });
  assert.is(res.headers.get('www-authenticate'), 'Basic realm="troupe"');
  await expectError(res, 401, 'invalid_client');
  await expectError(
    await postToken(ctx.url, PASSWORD, { Authorization: basic('other-client', 'troupe-secret') }),
    401,
    'invalid_client',
  );
});

t('two client authentication methods at once → 400 invalid_request', async () => {
  await expectError(await postToken(ctx.url, { ...PASSWORD, client_secret: 'troupe-secret' }), 400, 'invalid_request');
});

t('credentials in the query string → 400 invalid_request', async () => {
  const res = await fetch(`${ctx.url}/oauth/token?password=john-password`, {
    method: 'POST',
    headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'john.doe' }).toString(),
  });
  await expectError(res, 400, 'invalid_request', /query string/);
});

t('body not form-encoded → 400 invalid_request', async () => {
  const res = await fetch(`${ctx.url}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: basic(), 'Content-Type': 'application/json' },
    body: JSON.stringify(PASSWORD),
  });
  await expectError(res, 400, 'invalid_request', /x-www-form-urlencoded/);
  const empty = await fetch(`${ctx.url}/oauth/token`, { method: 'POST', headers: { Authorization: basic() } });
  await expectError(empty, 400, 'invalid_request');
  const form = { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' };
  const zero = await fetch(`${ctx.url}/oauth/token`, { method: 'POST', headers: form, body: '' });
  await expectError(zero, 400, 'invalid_request', /x-www-form-urlencoded/);
  // A chunked form (no Content-Length) is a body like any other.
  const chunked = await fetch(`${ctx.url}/oauth/token`, {
    method: 'POST',
    headers: form,
    body: new Blob([new URLSearchParams(PASSWORD).toString()]).stream(),
    duplex: 'half',
  });
  assert.is(chunked.status, 200);
});

t('missing grant_type, username or password → 400 invalid_request', async () => {
  await expectError(
    await postToken(ctx.url, { username: 'john.doe', password: 'john-password' }),
    400,
    'invalid_request',
    /grant_type/,
  );
  await expectError(
    await postToken(ctx.url, { grant_type: 'password', password: 'john-password' }),
    400,
    'invalid_request',
    /username/,
  );
  await expectError(
    await postToken(ctx.url, { grant_type: 'password', username: 'john.doe' }),
    400,
    'invalid_request',
    /password/,
  );
  await expectError(await postToken(ctx.url, { grant_type: 'refresh_token' }), 400, 'invalid_request', /refresh_token/);
});

t('a repeated parameter → 400 invalid_request', async () => {
  const res = await fetch(`${ctx.url}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: basic(), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=password&username=john.doe&username=admin&password=john-password',
  });
  await expectError(res, 400, 'invalid_request', /repeated/);
});

t('unknown grant type → 400 unsupported_grant_type', async () => {
  await expectError(await postToken(ctx.url, { grant_type: 'implicit' }), 400, 'unsupported_grant_type');
});

t('a known grant the original client is not registered for → 400 unauthorized_client', async () => {
  await expectError(await postToken(ctx.url, { grant_type: 'client_credentials' }), 400, 'unauthorized_client');
});

t('unknown user or wrong password → 400 invalid_grant "Bad credentials" for both', async () => {
  await expectError(
    await postToken(ctx.url, { ...PASSWORD, password: 'wrong' }),
    400,
    'invalid_grant',
    /^Bad credentials$/,
  );
  await expectError(
    await postToken(ctx.url, { ...PASSWORD, username: 'ghost' }),
    400,
    'invalid_grant',
    /^Bad credentials$/,
  );
});

t("scope outside the client's scopes → 400 invalid_scope", async () => {
  await expectError(await postToken(ctx.url, { ...PASSWORD, scope: 'read admin' }), 400, 'invalid_scope');
  const narrowed = await login(ctx.url, USERS.john, 'read');
  assert.is(narrowed.scope, 'read');
});

t('refresh grant › rotates the refresh token and issues a new access token', async () => {
  const first = await login(ctx.url);
  const res = await postToken(ctx.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('cache-control'), 'no-store');
  const second = (await res.json()) as { refresh_token: string; access_token: string; scope: string };
  assert.is.not(second.refresh_token, first.refresh_token);
  assert.is(second.scope, 'read write');
  const listed = await fetch(`${ctx.url}/app/listAll`, { headers: bearer(second.access_token) });
  assert.is(listed.status, 200);
});

t('refresh grant › the seed spelling refresh-token works too; scope may only narrow', async () => {
  const first = await login(ctx.url);
  const wide = await postToken(ctx.url, {
    grant_type: 'refresh-token',
    refresh_token: first.refresh_token ?? '',
    scope: 'read write admin',
  });
  await expectError(wide, 400, 'invalid_scope');
  const narrow = await postToken(ctx.url, {
    grant_type: 'refresh-token',
    refresh_token: first.refresh_token ?? '',
    scope: 'read',
  });
  assert.is(narrow.status, 200);
  assert.is(((await narrow.json()) as { scope: string }).scope, 'read');
});

t('refresh token unknown → 400 invalid_grant', async () => {
  await expectError(
    await postToken(ctx.url, { grant_type: 'refresh_token', refresh_token: 'not-a-token' }),
    400,
    'invalid_grant',
  );
});

t('refresh token already used once → 400 invalid_grant and the whole login is revoked', async () => {
  const first = await login(ctx.url);
  const rotated = (await (
    await postToken(ctx.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '' })
  ).json()) as { refresh_token: string };
  await expectError(
    await postToken(ctx.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '' }),
    400,
    'invalid_grant',
    /already used/,
  );
  await expectError(
    await postToken(ctx.url, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token }),
    400,
    'invalid_grant',
    /revoked/,
  );
});

t('GET /oauth/token → 405 with an Allow header', async () => {
  const res = await fetch(`${ctx.url}/oauth/token`);
  assert.is(res.status, 405);
  assert.match(res.headers.get('allow') ?? '', /POST/);
});

t.run();

const limited = serverSuite('POST /oauth/token with limited configuration', { 'security.jwt.grant-type': 'password' });

limited('grant type not in security.jwt.grant-type → 400 unauthorized_client; no refresh token issued', async (c) => {
  const tokens = await login(c.server.url);
  assert.is(tokens.refresh_token, undefined);
  const res = await postToken(c.server.url, { grant_type: 'refresh_token', refresh_token: 'A'.repeat(43) });
  await expectError(res, 400, 'unauthorized_client');
});

limited.run();

const shortLived = serverSuite('POST /oauth/token with one-second refresh tokens', {
  'security.jwt.refresh-token-validity': '1',
});

shortLived('refresh token expired → 400 invalid_grant', async (c) => {
  const tokens = await login(c.server.url);
  await new Promise((resolve) => setTimeout(resolve, 2100)); // past its expiry, counted in whole seconds
  const res = await postToken(c.server.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' });
  assert.is(res.status, 400);
  assert.is(((await res.json()) as { error: string }).error, 'invalid_grant');
});

shortLived.run();
