import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import * as assert from 'uvu/assert';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose';
import { serverSuite, startTestServer, tempDir } from '../helpers/server.ts';
import { basic, bearer, login, postToken, USERS, type TokenResponse } from '../helpers/tokens.ts';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const RSA_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const form = (
  url: string,
  path: string,
  params: Record<string, string>,
  headers: Record<string, string> = { Authorization: basic() },
) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  });

const rsa = serverSuite('authorization server with an RSA key', { 'security.signing-key': RSA_PEM });

rsa('GET /.well-known/jwks.json › the public key verifies an issued token with jose alone', async ({ server }) => {
  const res = await fetch(`${server.url}/.well-known/jwks.json`);
  assert.is(res.status, 200);
  const jwks = (await res.json()) as JSONWebKeySet;
  assert.is(jwks.keys.length, 2, 'the configured key, then the id_token key of the store');
  const [jwk] = jwks.keys;
  assert.is(jwk?.alg, 'RS256');
  assert.is(jwk?.use, 'sig');
  assert.is(jwk?.['d'], undefined, 'no private part');
  const token = (await login(server.url)).access_token;
  assert.is(decodeProtectedHeader(token).kid, jwk?.kid);
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), {
    algorithms: ['RS256'],
    issuer: server.config.security.jwt.issuer,
    audience: 'troupe-api',
    typ: 'at+jwt',
  });
  assert.match(payload.sub ?? '', /^account:[1-9][0-9]*$/);
  assert.is(payload['user_name'], 'john.doe');
});

rsa("GET /oauth/token_key › the PEM public key with Spring's algorithm name", async ({ server }) => {
  const body = (await (await fetch(`${server.url}/oauth/token_key`)).json()) as { alg: string; value: string };
  assert.is(body.alg, 'SHA256withRSA');
  assert.match(body.value, /^-----BEGIN PUBLIC KEY-----/);
  assert.not.match(body.value, /PRIVATE/);
});

rsa('hostile tokens › HS256 signed with the RSA public key, alg none, another RSA key → 401', async ({ server }) => {
  const publicPem = ((await (await fetch(`${server.url}/oauth/token_key`)).json()) as { value: string }).value;
  const jwt = server.config.security.jwt;
  const claims = {
    iss: jwt.issuer,
    aud: jwt.resourceIds,
    sub: 'john.doe',
    jti: crypto.randomUUID(),
    client_id: 'troupe-client',
    scope: 'read write',
    authorities: ['ADMIN'],
  };
  const now = Math.floor(Date.now() / 1000);
  const confused = await new SignJWT({ ...claims, iat: now, exp: now + 600 })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .sign(createSecretKey(Buffer.from(publicPem)));
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const foreign = await new SignJWT({ ...claims, iat: now, exp: now + 600 })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' })
    .sign(other);
  const none = `${Buffer.from('{"alg":"none","typ":"at+jwt"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, iat: now, exp: now + 600 })).toString('base64url')}.`;
  for (const token of [confused, foreign, none]) {
    const res = await fetch(`${server.url}/app/listAll`, { headers: bearer(token) });
    assert.is(res.status, 401);
    assert.is(((await res.json()) as { error: string }).error, 'invalid_token');
  }
});

rsa('GET /.well-known/oauth-authorization-server › RFC 8414 metadata', async ({ server }) => {
  const meta = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
    string,
    unknown
  >;
  const issuer = server.config.security.jwt.issuer;
  assert.is(meta['issuer'], issuer);
  assert.is(meta['token_endpoint'], `${issuer}/oauth/token`);
  assert.is(meta['revocation_endpoint'], `${issuer}/oauth/revoke`);
  assert.is(meta['introspection_endpoint'], `${issuer}/oauth/introspect`);
  assert.is(meta['jwks_uri'], `${issuer}/.well-known/jwks.json`);
  assert.equal(meta['grant_types_supported'], ['password', 'refresh_token', 'authorization_code']);
  assert.equal(meta['scopes_supported'], ['openid', 'profile', 'email', 'read', 'write']);
  assert.equal(meta['token_endpoint_auth_methods_supported'], ['client_secret_basic', 'client_secret_post']);
});

rsa.run();

const rs512 = serverSuite('authorization server with an RSA key at encoding strength 512', {
  'security.signing-key': RSA_PEM,
  'security.encoding-strength': '512',
});
rs512('tokens are RS512 and the resource server accepts them', async ({ server }) => {
  const token = (await login(server.url)).access_token;
  assert.is(decodeProtectedHeader(token).alg, 'RS512');
  assert.is((await fetch(`${server.url}/app/listAll`, { headers: bearer(token) })).status, 200);
  assert.is(((await (await fetch(`${server.url}/oauth/token_key`)).json()) as { alg: string }).alg, 'SHA512withRSA');
});
rs512.run();

const MAC = 'a-mac-signing-key-that-must-never-leave-the-server-0123456789';
const mac = serverSuite('authorization server with a MAC key', { 'security.signing-key': MAC });

mac(
  'GET /oauth/token_key → 403; GET /.well-known/jwks.json → the id_token key alone, never the MAC key',
  async ({ server }) => {
    const res = await fetch(`${server.url}/oauth/token_key`);
    assert.is(res.status, 403);
    assert.is(((await res.json()) as { error: string }).error, 'access_denied');
    const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    assert.equal(
      jwks.keys.map((k) => [k.kty, k.alg]),
      [['RSA', 'RS256']],
    );
  },
);

mac('the MAC key appears in no response', async ({ server }) => {
  const tokens = await login(server.url);
  const responses = await Promise.all([
    fetch(`${server.url}/oauth/token_key`),
    fetch(`${server.url}/.well-known/jwks.json`),
    fetch(`${server.url}/.well-known/oauth-authorization-server`),
    form(server.url, '/oauth/introspect', { token: tokens.access_token }),
    postToken(server.url, { grant_type: 'password', ...USERS.admin }),
    fetch(`${server.url}/app/listAll`, { headers: bearer(tokens.access_token) }),
    fetch(`${server.url}/nowhere`),
  ]);
  const b64 = Buffer.from(MAC).toString('base64url');
  for (const res of responses) {
    const text = `${[...res.headers].join('\n')}\n${await res.text()}`;
    assert.not.ok(text.includes(MAC) || text.includes(b64), `leaked by ${res.url}`);
  }
});

mac('POST /oauth/revoke › an access token is refused from then on, and after a restart', async ({ server }) => {
  const tokens = await login(server.url);
  assert.is((await fetch(`${server.url}/app/listAll`, { headers: bearer(tokens.access_token) })).status, 200);
  const res = await form(server.url, '/oauth/revoke', { token: tokens.access_token, token_type_hint: 'access_token' });
  assert.is(res.status, 200);
  const after = await fetch(`${server.url}/app/listAll`, { headers: bearer(tokens.access_token) });
  assert.is(after.status, 401);
  assert.match(after.headers.get('www-authenticate') ?? '', /error_description="Access token revoked"/);
  const dir = tempDir();
  const a = await startTestServer({ 'security.signing-key': MAC }, dir);
  const t2 = await login(a.url);
  await form(a.url, '/oauth/revoke', { token: t2.access_token });
  await a.stop();
  const b = await startTestServer({ 'security.signing-key': MAC }, dir);
  try {
    assert.is((await fetch(`${b.url}/app/listAll`, { headers: bearer(t2.access_token) })).status, 401);
  } finally {
    await b.close();
  }
});

/** Whether the resource server accepts the token, and whether introspection calls it active. */
async function standing(url: string, token: string): Promise<[number, boolean]> {
  const status = (await fetch(`${url}/app/listAll`, { headers: bearer(token) })).status;
  const active = ((await (await form(url, '/oauth/introspect', { token })).json()) as { active: boolean }).active;
  return [status, active];
}

const refreshed = async (url: string, refreshToken: string | undefined): Promise<TokenResponse> =>
  (await (
    await postToken(url, { grant_type: 'refresh_token', refresh_token: refreshToken ?? '' })
  ).json()) as TokenResponse;

/**
 * A login with one rotation (two access tokens) and a second login of the same user; `revoke`
 * revokes the first login. Every access token of it is refused at the resource server and by
 * introspection, also after a restart; the other login is untouched.
 */
async function revokesWholeLogin(
  revoke: (url: string, first: TokenResponse, rotated: TokenResponse) => Promise<void>,
): Promise<void> {
  const dir = tempDir();
  const a = await startTestServer({ 'security.signing-key': MAC }, dir);
  let first: TokenResponse, rotated: TokenResponse, other: TokenResponse;
  try {
    first = await login(a.url);
    rotated = await refreshed(a.url, first.refresh_token);
    other = await login(a.url);
    for (const token of [first, rotated, other]) assert.equal(await standing(a.url, token.access_token), [200, true]);
    await revoke(a.url, first, rotated);
    for (const token of [first, rotated])
      assert.equal(await standing(a.url, token.access_token), [401, false], 'an access token of the revoked login');
    assert.equal(await standing(a.url, other.access_token), [200, true], 'another login of the same user');
  } catch (error) {
    await a.close();
    throw error;
  }
  await a.stop();
  const b = await startTestServer({ 'security.signing-key': MAC }, dir);
  try {
    for (const token of [first, rotated])
      assert.equal(await standing(b.url, token.access_token), [401, false], 'after a restart');
    assert.equal(await standing(b.url, other.access_token), [200, true]);
    assert.is(
      (await postToken(b.url, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token ?? '' })).status,
      400,
    );
  } finally {
    await b.close();
  }
}

mac(
  'POST /oauth/revoke › a refresh token revokes its whole login: its refresh tokens and every access token issued in it',
  async () => {
    await revokesWholeLogin(async (url, _first, rotated) => {
      assert.is(
        (await form(url, '/oauth/revoke', { token: rotated.refresh_token ?? '', token_type_hint: 'refresh_token' }))
          .status,
        200,
      );
      const res = await postToken(url, { grant_type: 'refresh_token', refresh_token: rotated.refresh_token ?? '' });
      assert.is(res.status, 400);
      assert.is(((await res.json()) as { error: string }).error, 'invalid_grant');
    });
  },
);

mac('refresh token reuse › every access token of the login is refused from then on, and after a restart', async () => {
  await revokesWholeLogin(async (url, first) => {
    const reuse = await postToken(url, { grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '' });
    assert.is(reuse.status, 400);
    assert.match(
      ((await reuse.json()) as { error_description: string }).error_description,
      /every token of this login is revoked/,
    );
  });
});

mac(
  'token_type_hint › a wrong hint neither hides a token from introspection nor keeps it from being revoked',
  async ({ server }) => {
    const first = await login(server.url);
    const refresh = first.refresh_token ?? '';
    const seen = (await (
      await form(server.url, '/oauth/introspect', { token: refresh, token_type_hint: 'access_token' })
    ).json()) as Record<string, unknown>;
    assert.is(seen['active'], true, 'a refresh token hinted as an access token');
    const access = (await (
      await form(server.url, '/oauth/introspect', { token: first.access_token, token_type_hint: 'refresh_token' })
    ).json()) as Record<string, unknown>;
    assert.is(access['active'], true, 'an access token hinted as a refresh token');
    assert.is(
      (await form(server.url, '/oauth/revoke', { token: refresh, token_type_hint: 'access_token' })).status,
      200,
    );
    const res = await postToken(server.url, { grant_type: 'refresh_token', refresh_token: refresh });
    assert.is(res.status, 400, 'the refresh token was revoked despite the hint');
    const second = await login(server.url);
    assert.is(
      (await form(server.url, '/oauth/revoke', { token: second.access_token, token_type_hint: 'refresh_token' }))
        .status,
      200,
    );
    assert.is(
      (await fetch(`${server.url}/app/listAll`, { headers: bearer(second.access_token) })).status,
      401,
      'the access token was revoked despite the hint',
    );
  },
);

mac(
  'POST /oauth/revoke › 200 for unknown tokens; 401 without client authentication; 400 without a token',
  async ({ server }) => {
    assert.is((await form(server.url, '/oauth/revoke', { token: 'no-such-token' })).status, 200);
    const anonymous = await form(server.url, '/oauth/revoke', { token: 'x' }, {});
    assert.is(anonymous.status, 401);
    assert.is(((await anonymous.json()) as { error: string }).error, 'invalid_client');
    const missing = await form(server.url, '/oauth/revoke', {});
    assert.is(missing.status, 400);
    assert.is(((await missing.json()) as { error: string }).error, 'invalid_request');
  },
);

mac('POST /oauth/introspect › an active access token with its claims', async ({ server }) => {
  const tokens = await login(server.url, USERS.john, 'read');
  const body = (await (await form(server.url, '/oauth/introspect', { token: tokens.access_token })).json()) as Record<
    string,
    unknown
  >;
  assert.is(body['active'], true);
  assert.is(body['scope'], 'read');
  assert.is(body['client_id'], 'troupe-client');
  assert.is(body['username'], 'john.doe');
  assert.match(String(body['sub']), /^account:[1-9][0-9]*$/);
  assert.is(body['token_type'], 'Bearer');
  assert.is(body['aud'], 'troupe-api');
  assert.is(body['iss'], server.config.security.jwt.issuer);
  assert.is(body['jti'], tokens.jti);
  assert.type(body['exp'], 'number');
  assert.type(body['iat'], 'number');
});

mac(
  'POST /oauth/introspect › refresh tokens; revoked, spent and unknown tokens are inactive; /oauth/check_token too',
  async ({ server }) => {
    const tokens = await login(server.url);
    const refresh = (await (
      await form(server.url, '/oauth/introspect', { token: tokens.refresh_token ?? '' })
    ).json()) as Record<string, unknown>;
    assert.is(refresh['active'], true);
    assert.is(refresh['token_type'], 'refresh_token');
    await postToken(server.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' });
    assert.equal(await (await form(server.url, '/oauth/check_token', { token: tokens.refresh_token ?? '' })).json(), {
      active: false,
    });
    await form(server.url, '/oauth/revoke', { token: tokens.access_token });
    assert.equal(await (await form(server.url, '/oauth/introspect', { token: tokens.access_token })).json(), {
      active: false,
    });
    assert.equal(await (await form(server.url, '/oauth/check_token', { token: 'garbage' })).json(), { active: false });
    assert.is((await form(server.url, '/oauth/introspect', { token: 'x' }, {})).status, 401);
  },
);

mac.run();
