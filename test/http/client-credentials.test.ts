import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { CLIENTS, clientsFile, CONSOLE, SERVICE, SPA, WEB } from '../helpers/clients.ts';
import { serverSuite } from '../helpers/server.ts';
import { basic, bearer, CLIENT_ID, CLIENT_SECRET, postToken, USERS } from '../helpers/tokens.ts';

const t = serverSuite('POST /oauth/token › registered clients and client_credentials', {
  'security.clients-file': clientsFile(CLIENTS),
});

const service = { Authorization: basic(SERVICE.id, SERVICE.secret) };

async function expectError(res: Response, status: number, error: string): Promise<void> {
  assert.is(res.status, status);
  assert.is(((await res.json()) as { error: string }).error, error);
}

async function clientToken(url: string, form: Record<string, string> = {}): Promise<string> {
  const res = await postToken(url, { grant_type: 'client_credentials', ...form }, service);
  assert.is(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.is(body['refresh_token'], undefined, 'no refresh token');
  return String(body['access_token']);
}

t('client_credentials › the token names the client as sub and client_id, no roles, no user', async (c) => {
  const claims = decodeJwt(await clientToken(c.server.url));
  assert.is(claims.sub, SERVICE.id);
  assert.is(claims['client_id'], SERVICE.id);
  assert.equal(claims['authorities'], []);
  assert.is(claims['user_name'], undefined);
  assert.is(claims['scope'], 'read');
});

t('client_credentials › opens /api by scope; /app role resources → 403', async (c) => {
  const token = await clientToken(c.server.url);
  const read = await fetch(`${c.server.url}/api/employee/999999`, { headers: bearer(token) });
  assert.ok(![401, 403].includes(read.status), `past the access check (${read.status})`);
  assert.is((await fetch(`${c.server.url}/app/user`, { headers: bearer(token) })).status, 403);
  const write = await fetch(`${c.server.url}/api/user`, {
    method: 'POST',
    headers: { ...bearer(token), 'Content-Type': 'application/json' },
    body: '{}',
  });
  assert.is(write.status, 403, 'no write scope');
});

t(
  "client_credentials › PUT /app/me/password → 403 insufficient_scope: not one of the service's own clients",
  async (c) => {
    const res = await fetch(`${c.server.url}/app/me/password`, {
      method: 'PUT',
      headers: { ...bearer(await clientToken(c.server.url)), 'Content-Type': 'application/json' },
      body: JSON.stringify({ currentPassword: 'whatever-it-is', newPassword: 'a-new-password' }),
    });
    assert.is(res.status, 403);
    assert.is(((await res.json()) as { error: string }).error, 'insufficient_scope');
  },
);

t('client_credentials › wider scope → 400 invalid_scope', async (c) => {
  await expectError(
    await postToken(c.server.url, { grant_type: 'client_credentials', scope: 'write' }, service),
    400,
    'invalid_scope',
  );
});

t('client_credentials › introspection shows it active with no username; revocation ends it', async (c) => {
  const token = await clientToken(c.server.url);
  const introspect = async () => {
    const res = await fetch(`${c.server.url}/oauth/introspect`, {
      method: 'POST',
      headers: { ...service, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const found = await introspect();
  assert.is(found['active'], true);
  assert.is(found['sub'], SERVICE.id);
  assert.is(found['client_id'], SERVICE.id);
  assert.is(found['username'], undefined);
  const revoked = await fetch(`${c.server.url}/oauth/revoke`, {
    method: 'POST',
    headers: { ...service, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });
  assert.is(revoked.status, 200);
  assert.is((await introspect())['active'], false);
  assert.is((await fetch(`${c.server.url}/api/employee/999999`, { headers: bearer(token) })).status, 401);
});

t('a grant the client is not registered for → 400 unauthorized_client', async (c) => {
  await expectError(
    await postToken(c.server.url, { grant_type: 'password', ...USERS.john }, service),
    400,
    'unauthorized_client',
  );
  const web = { client_id: WEB.id, client_secret: WEB.secret };
  await expectError(
    await postToken(c.server.url, { grant_type: 'client_credentials', ...web }, {}),
    400,
    'unauthorized_client',
  );
});

t('the original client keeps the password grant, and may not use client_credentials', async (c) => {
  assert.is((await postToken(c.server.url, { grant_type: 'password', ...USERS.john })).status, 200);
  await expectError(await postToken(c.server.url, { grant_type: 'client_credentials' }), 400, 'unauthorized_client');
});

t('a public client is named by client_id alone, and never gets client_credentials or password', async (c) => {
  await expectError(
    await postToken(c.server.url, { grant_type: 'client_credentials', client_id: SPA.id }, {}),
    400,
    'unauthorized_client',
  );
  await expectError(
    await postToken(c.server.url, { grant_type: 'password', client_id: SPA.id, ...USERS.john }, {}),
    400,
    'unauthorized_client',
  );
});

t('a public client presenting a secret, or a confidential client without one → 401 invalid_client', async (c) => {
  await expectError(
    await postToken(c.server.url, { grant_type: 'client_credentials' }, { Authorization: basic(SPA.id, 'x') }),
    401,
    'invalid_client',
  );
  await expectError(
    await postToken(c.server.url, { grant_type: 'client_credentials', client_id: SERVICE.id }, {}),
    401,
    'invalid_client',
  );
});

/** 401 invalid_client with a Basic challenge and `description`. */
async function refusedClient(res: Response, description: RegExp): Promise<void> {
  assert.is(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /^Basic realm=/);
  const body = (await res.json()) as { error: string; error_description: string };
  assert.is(body.error, 'invalid_client');
  assert.match(body.error_description, description);
}

t('a client registered for client_secret_basic sending its secret in the body → 401 invalid_client', async (c) => {
  const inBody = { grant_type: 'client_credentials', client_id: SERVICE.id, client_secret: SERVICE.secret };
  await refusedClient(
    await postToken(c.server.url, inBody, {}),
    /^The client is not registered for client_secret_post authentication$/,
  );
  // A wrong secret reads as any wrong secret: the registration is told only to who knows the secret.
  await refusedClient(
    await postToken(c.server.url, { ...inBody, client_secret: 'wrong' }, {}),
    /^Bad client credentials$/,
  );
  assert.is((await postToken(c.server.url, { grant_type: 'client_credentials' }, service)).status, 200);
});

t('a client registered for client_secret_post sending HTTP Basic → 401 invalid_client', async (c) => {
  const form = { grant_type: 'refresh_token', refresh_token: 'x' };
  await refusedClient(
    await postToken(c.server.url, form, { Authorization: basic(WEB.id, WEB.secret) }),
    /^The client is not registered for client_secret_basic authentication$/,
  );
  const inBody = await postToken(c.server.url, { ...form, client_id: WEB.id, client_secret: WEB.secret }, {});
  await expectError(inBody, 400, 'invalid_grant');
});

t('a client that registered no method, and the security.jwt.* client, may use either', async (c) => {
  const grant = { grant_type: 'client_credentials' };
  assert.is((await postToken(c.server.url, grant, { Authorization: basic(CONSOLE.id, CONSOLE.secret) })).status, 200);
  const inBody = { ...grant, client_id: CONSOLE.id, client_secret: CONSOLE.secret };
  assert.is((await postToken(c.server.url, inBody, {})).status, 200);
  const password = { grant_type: 'password', ...USERS.john };
  assert.is((await postToken(c.server.url, password, { Authorization: basic(CLIENT_ID, CLIENT_SECRET) })).status, 200);
  const original = { ...password, client_id: CLIENT_ID, client_secret: CLIENT_SECRET };
  assert.is((await postToken(c.server.url, original, {})).status, 200);
});

t('the registered method holds at revocation and introspection too', async (c) => {
  const token = await clientToken(c.server.url);
  for (const path of ['/oauth/revoke', '/oauth/introspect', '/oauth/check_token']) {
    const res = await fetch(`${c.server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: SERVICE.id, client_secret: SERVICE.secret }).toString(),
    });
    await refusedClient(res, /not registered for client_secret_post/);
  }
});

t("POST /oauth/revoke › another client's token is 400 unauthorized_client, and stays valid", async (c) => {
  const token = await clientToken(c.server.url);
  const res = await fetch(`${c.server.url}/oauth/revoke`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic(CLIENT_ID, CLIENT_SECRET) },
    body: new URLSearchParams({ token }).toString(),
  });
  assert.is(res.status, 400);
  assert.equal(await res.json(), {
    error: 'unauthorized_client',
    error_description: 'The token was issued to another client',
  });
  const read = await fetch(`${c.server.url}/api/employee/000000000000000000000000`, { headers: bearer(token) });
  assert.is(read.status, 404, 'the token still reads');
});

t('metadata lists every client grant, scope and the none method', async (c) => {
  const m = (await (await fetch(`${c.server.url}/.well-known/oauth-authorization-server`)).json()) as Record<
    string,
    unknown
  >;
  assert.equal(m['grant_types_supported'], ['password', 'refresh_token', 'authorization_code', 'client_credentials']);
  assert.equal(m['token_endpoint_auth_methods_supported'], ['client_secret_basic', 'client_secret_post', 'none']);
});

t.run();
